import PayPanel

/// `paypanel token decrypt [TOKEN|-] [--merchant-cert PEM --merchant-key PEM]… [--root PEM] [--now T] [--window S] [--no-time-check]`
struct TokenDecryptCommand: CLICommand {
    static let spec = CommandSpec(
        name: "decrypt",
        abstract: "Verify an Apple Pay payment token and print its decrypted payment data.",
        discussion: """
            Verifies the token exactly as 'token verify' does, decrypts it with the merchant key its \
            publicKeyHash names, and prints the decrypted JSON object. This is a developer tool: the \
            output contains the device account number and the cryptogram. Never log it.
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
        let verifier = try arguments.tokenVerifier(console: console)
        let bytes = try InputFile.read(file, console: console, what: "payment token")
        let token = try ApplePayTokenDecryptor(verifier: verifier).decrypt(bytes, at: clock.now())
        console.printJSON(token.plaintextJSON)
        return .success
    }
}
