import PayPanel

/// `paypanel token verify [TOKEN|-] [verification options] [--json]`
struct TokenVerifyCommand: CLICommand {
    static let spec = CommandSpec(
        name: "verify",
        abstract: "Check an Apple Pay payment token's signature, certificate chain, signing time and merchant key.",
        discussion: """
            Checks the CMS signature and Apple's marker OIDs, verifies the chain to the pinned root at \
            the verification time (--now), checks the signing time is within --window of it, and picks \
            the merchant key by the token's publicKeyHash. Decrypts nothing. Exit 0 when valid, 1 with \
            the reason otherwise.
            The root is Apple Root CA - G3 (built in) unless --root or $PAYPANEL_APPLE_ROOT pins another; \
            tokens from 'paypanel token seal' need --test-root. Tokens from Apple Pay's sandbox are \
            reported as such and refused unless --allow-sandbox (or --test-root) is given.
            """,
        arguments: [.optional("token", help: "The PKPaymentToken or paymentData JSON, or - for standard input (the default).")],
        options: TokenOptions.verification + [CommonOptions.json])

    let file: String?
    let json: Bool
    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        file = arguments.positional(0)
        json = arguments.flag(CommonOptions.json.name)
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let clock = try arguments.clock(environment: context.environment)
        let verification = try arguments.tokenVerification(console: console)
        let bytes = try InputFile.read(file, console: console, what: "payment token")
        let verified = try verification.explaining { try verification.verifier.verify(bytes, at: clock.now()) }
        let signingTime = verified.signingTime.map(Timestamp.format)
        let merchant = verified.merchant.merchantIdentifier ?? verified.merchant.certificate.subject
        if json {
            console.printJSON([
                "valid": true,
                "version": .string(verified.token.version.rawValue),
                "transactionId": .string(verified.transactionId),
                "signingTime": .optional(signingTime),
                "verifiedAt": .string(Timestamp.format(verified.verifiedAt)),
                "signer": .string(verified.signer.subject),
                "intermediate": .string(verified.intermediate.subject),
                "merchant": .string(merchant),
                "publicKeyHash": .string(verified.merchant.publicKeyHashBase64),
                "environment": .string(verified.environment.rawValue),
                "root": .string(verification.trust.root.subject),
                "testMode": .bool(verification.trust.isTestMode),
            ])
        } else {
            console.print("valid \(verified.token.version.rawValue) payment token")
            console.print("  transactionId  \(verified.transactionId)")
            console.print("  signing time   \(signingTime ?? "none (not checked)")")
            console.print("  environment    \(verified.environment.rawValue)")
            console.print("  signer         \(verified.signer.subject)")
            console.print("  root           \(verification.trust.rootDescription)")
            console.print("  merchant       \(merchant) (publicKeyHash \(verified.merchant.publicKeyHashBase64))")
        }
        return .success
    }
}
