import PayPanel

/// `paypanel token decrypt [TOKEN|-] [--merchant-cert PEM --merchant-key PEM]… [--root PEM | --test-root] [--allow-sandbox] [--now T] [--window S] [--no-time-check]`
struct TokenDecryptCommand: CLICommand {
    static let spec = CommandSpec(
        name: "decrypt",
        abstract: "Verify an Apple Pay payment token and print its decrypted payment data.",
        discussion: """
            Verifies the token exactly as 'token verify' does, decrypts it with the merchant key its \
            publicKeyHash names, and prints the decrypted JSON object. This is a developer tool: the \
            output contains the device account number and the cryptogram. Never log it. A sandbox \
            token (accepted with --allow-sandbox or --test-root) is named on standard error; standard \
            output stays the decrypted object alone.
            """,
        arguments: [.optional("token", help: "The PKPaymentToken or paymentData JSON, or - for standard input (the default).")],
        options: TokenOptions.verification)

    let file: String?
    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        file = arguments.positional(0)
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let clock = try arguments.clock(environment: context.environment)
        let verification = try arguments.tokenVerification(console: console)
        let bytes = try InputFile.read(file, console: console, what: "payment token")
        let decryptor = ApplePayTokenDecryptor(verifier: verification.verifier)
        let verified = try verification.explaining { try verification.verifier.verify(bytes, at: clock.now()) }
        let token = try decryptor.decrypt(verified)
        if verified.environment == .sandbox {
            console.printError("note: environment sandbox: the token was signed by Apple Pay's sandbox (\(verified.signer.commonName ?? verified.signer.subject)); its card is a sandbox test card")
        }
        console.printJSON(token.plaintextJSON)
        return .success
    }
}
