import PayPanel

/// `paypanel payments authorize ID (--card PAN [--holder NAME] [--expiry MM/YY] | --token FILE [--root PEM | --test-root] [--allow-sandbox]) [--idempotency-key KEY] …`
struct PaymentsAuthorizeCommand: CLICommand {
    static let spec = CommandSpec(
        name: "authorize",
        abstract: "Authorize a payment intent with a card or an Apple Pay token, through the mock processor.",
        discussion: """
            Opens a new attempt and sends it to the processor. With automatic capture an approval is \
            captured at once; with manual capture the intent waits in requires_capture. A decline exits 1 \
            with the decline code (the payer's message is printed too); a 3-D Secure card leaves the intent \
            in requires_action (answer with 'payments challenge'); an unknown outcome (timeout, HTTP 500) \
            leaves it processing until 'paypanel reconcile' learns the answer.
            The holder name and the card number choose the mock processor's behaviour: see \
            'paypanel processor triggers'.
            With --token, the Apple Pay token (from 'paypanel token seal' or a device) is verified and \
            decrypted first (signature, certificate chain to Apple Root CA - G3 or --root, signing time, \
            the --merchant-cert/--merchant-key its publicKeyHash names), must be for the intent's amount \
            and currency, and may be used once: its transactionId is recorded with the attempt. Tokens \
            from 'paypanel token seal' need --test-root (the built-in test root and test merchants; \
            never in production); Apple Pay sandbox tokens need --allow-sandbox. A token payment \
            answers the Apple Pay sheet, so it gets the sheet's 25 s deadline.
            """,
        arguments: [.required("id", help: "The payment intent id (pi_…).")],
        options: [
            .value("--card", "pan", help: "The card number (test cards: 4242424242424242, 4000000000000002, …). Never stored."),
            .value("--holder", "name", help: "The cardholder name (mock-processor magic values: DO_NOT_HONOR, TIMEOUT_THEN_APPROVED, SLOW_30S, …)."),
            .value("--expiry", "mm/yy", help: "The card's expiry month and year."),
            .value("--token", "file", help: "An Apple Pay payment token (PKPaymentToken or bare paymentData JSON), or - for standard input."),
            IdempotentOutput.keyOption, CheckoutOptions.scenario,
        ] + TokenOptions.checking + CheckoutOptions.all,
        combinations: "(--card <pan> [--holder <name>] [--expiry <mm/yy>] | --token <file> [--root <certificate> | --test-root] [--allow-sandbox])")

    let arguments: ParsedArguments
    let id: String
    /// The typed-in card, or nil when paying with `--token`.
    let method: PaymentMethodData?
    let tokenFile: String?
    let idempotencyKey: String?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
        tokenFile = arguments.value("--token")
        let cardText = arguments.value("--card")
        switch (cardText, tokenFile) {
        case (nil, nil): throw UsageError("Missing expected option '--card <pan>' or '--token <file>'")
        case (.some, .some): throw UsageError("give either '--card' or '--token', not both")
        case (nil, .some):
            if arguments.value("--holder") != nil || arguments.value("--expiry") != nil {
                throw UsageError("'--holder' and '--expiry' go with '--card'; a token carries its own")
            }
            method = nil
        case (.some(let cardText), nil):
            if let tokenOption = TokenOptions.checking.first(where: { arguments.flag($0.name) || !arguments.allValues($0.name).isEmpty }) {
                throw UsageError("'\(tokenOption.name)' goes with '--token': a typed-in card has no token to check")
            }
            let card: CardNumber
            do {
                card = try CardNumber(cardText)
            } catch {
                throw UsageError("'--card': \(error.message)")
            }
            var expiry: CardExpiry?
            if let text = arguments.value("--expiry") {
                do {
                    expiry = try CardExpiry(text)
                } catch {
                    throw UsageError("'--expiry': \(error.message)")
                }
            }
            method = .card(number: card, expiry: expiry, holderName: arguments.value("--holder"))
        }
        idempotencyKey = try arguments.idempotencyKey()
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let service = try arguments.openPaymentService(environment: context.environment)
        let scenario = arguments.value(CheckoutOptions.scenario.name)
        let outcome: PaymentOutcome
        if let method {
            let submission = PaymentSubmission(intentID: id, method: method, source: .card, scenario: scenario)
            outcome = try await service.authorize(submission, idempotencyKey: idempotencyKey)
        } else {
            let token = try InputFile.read(tokenFile, console: context.console, what: "Apple Pay token")
            let verification = try arguments.tokenVerification(console: context.console)
            let decryptor = ApplePayTokenDecryptor(verifier: verification.verifier)
            do {
                outcome = try await service.authorize(
                    applePayToken: token, intentID: id, decryptor: decryptor, scenario: scenario, idempotencyKey: idempotencyKey)
            } catch {
                throw verification.trust.explained(error)
            }
        }
        return PaymentsOutcomeOutput.print(outcome, key: idempotencyKey, json: json, console: context.console)
    }
}

/// How checkout commands print their outcome and choose the exit status: 0 for a success,
/// 1 with `Error:` for an outcome that `failureReport` calls a failure (a decline, an unknown
/// outcome, a sheet answered with failure), whether fresh or replayed.
enum PaymentsOutcomeOutput {
    static func print(_ outcome: PaymentOutcome, key: String?, json: Bool, console: Console) -> ExitStatus {
        IdempotentOutput.noteReplay(key: key, replayed: outcome.replayed, firstUsedAt: outcome.firstUsedAt, console: console)
        if json {
            console.printJSON(outcome.json)
        } else {
            PaymentsText.outcome(outcome).forEach { console.print($0) }
        }
        if let failure = outcome.failureReport {
            console.printError("Error: \(failure.message)")
            return .failure
        }
        if let note = note(for: outcome.intent) {
            console.printError("note: \(note)")
        }
        return .success
    }

    /// What to run next, for the states that wait on someone.
    static func note(for intent: PaymentIntent) -> String? {
        switch intent.status {
        case .requiresAction:
            return "3-D Secure: the cardholder must answer the challenge: paypanel payments challenge \(intent.id) pass|fail|abandon"
        case .requiresCapture:
            let deadline = intent.captureBefore.map(Timestamp.format) ?? "the deadline"
            return "authorized; capture before \(deadline): paypanel payments capture \(intent.id) [--amount X]"
        case .requiresMerchantAction:
            return "an operator must look at this intent: paypanel payments show \(intent.id), then paypanel payments resolve \(intent.id) --as authorized|succeeded|canceled|retry --note TEXT"
        default:
            return nil
        }
    }
}

extension ParsedArguments {
    /// `--idempotency-key`, checked for shape (and for looking like a card number).
    func idempotencyKey() throws -> String? {
        guard let key = value(IdempotentOutput.keyOption.name) else { return nil }
        do {
            try IdempotencyStore.validate(key)
        } catch {
            throw UsageError("'\(IdempotentOutput.keyOption.name)': \(error.message)")
        }
        return key
    }
}
