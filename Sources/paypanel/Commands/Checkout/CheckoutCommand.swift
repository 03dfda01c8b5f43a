import Foundation
import MockProcessor
import PayPanel
import PayPanelDemo

/// `paypanel checkout`: plays the device — banner, expanded panel, Apple Pay sheet or the
/// app's card form — while the real backend runs underneath: the request is validated, a
/// token is sealed and then verified and decrypted, the intent goes through the state
/// machine against the mock processor, and everything lands in SQLite.
///
/// On a terminal it is a full-screen UI (raw mode); otherwise it reads one command per line.
struct CheckoutCommand: CLICommand {
    static let notification = OptionSpec.value(
        "--notification", "file", help: "The payment-action push to start from (from 'notify build' or fixtures/notifications). Default: the seed panel.")
    static let update = OptionSpec.value(
        "--update", "file", help: "A second push for the same order, applied to the open panel after --update-after seconds.")
    static let updateAfter = OptionSpec.value(
        "--update-after", "seconds", help: "When --update arrives, in seconds on the checkout's clock (default 5; virtual with --now: 'wait S' lets it pass).")
    static let capture = OptionSpec.value(
        "--capture", "method", help: "automatic (capture on approval, the default) or manual (capture later with 'payments capture').")
    static let width = OptionSpec.value(
        "--width", "columns", help: "Width of the device's screens, borders included (\(RenderOptions.minimumWidth)–120, default \(CheckoutRenderOptions.defaultWidth)).")
    static let lines = OptionSpec.flag(
        "--lines", help: "Read line commands even on a terminal (the mode scripts get when standard input is not a terminal).")

    static let spec = CommandSpec(
        name: "checkout",
        abstract: "Run the interactive checkout: the notification panel, the Apple Pay sheet and the backend.",
        discussion: """
            Plays the device while the real backend runs: the payment request is built from the panel \
            and validated, Buy with Apple Pay seals a token for the chosen test-wallet card to the \
            built-in demo merchant, which the backend verifies, decrypts and authorizes through the \
            mock processor; Pay in app sends a typed card on the same intent. Everything is stored in \
            the payments database and the processor's ledger.
            The checkout runs in test mode and says so first: its backend trusts PayPanel's built-in \
            test root, which signs the tokens it seals (never a production setting; 'token verify', \
            'token decrypt' and 'payments authorize --token' need --test-root for that).
            On a terminal: ←/→ or 1-3 select the amount, Tab/↑/↓ move, Enter activates, a Buy with \
            Apple Pay, p Pay in app, Esc back, q quit.
            Otherwise (or with --lines or --json) one command per line: expand, select N|AMOUNT, buy, \
            app, card N|PAN, expiry MM/YY, holder NAME, confirm, pass, fail, back, done, wait SECONDS, \
            show, help, quit. End of input quits.
            With --server http://HOST:PORT the backend is a running 'paypanel serve --test-root': the \
            checkout is created there with --api-key (or $PAYPANEL_API_KEY), the screens come from the \
            push payload it returns, and each payment is the device's POST /v1/checkouts/{id}/pay with \
            the client secret; a 3-D Secure answer goes to the merchant's /challenge call.
            Exit status: 0 when a payment went through or the payer quit, 1 when the checkout ended \
            on a failure (an unknown outcome, an error); 130 after Ctrl-C. Quitting (q, quit, the end of \
            input, Ctrl-C) cancels an unpaid intent; with --server it also closes the server's \
            checkout, and the last line says so. See docs/checkout.md.
            """,
        options: [notification, update, updateAfter, capture, width, lines, ServerCheckout.server, ServerCheckout.apiKey] + CheckoutOptions.all)

    let arguments: ParsedArguments
    let notificationFile: String?
    let updateFile: String?
    let updateDelay: TimeInterval
    let captureMethod: CaptureMethod
    let screenWidth: Int
    let json: Bool
    let forcesLines: Bool
    /// `--server URL`: the device against a running paypanel serve.
    let serverURL: String?

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        notificationFile = arguments.value(Self.notification.name)
        updateFile = arguments.value(Self.update.name)
        let delay = try NotifyInput.seconds(arguments.value(Self.updateAfter.name), option: Self.updateAfter.name, range: 0...3600)
        if delay != nil && updateFile == nil {
            throw UsageError("'\(Self.updateAfter.name)' says when '--update <file>' arrives: give the update too")
        }
        updateDelay = delay.map(\.timeInterval) ?? 5
        captureMethod = try arguments.choice(Self.capture.name, from: CaptureMethod.allCases.map(\.rawValue))
            .flatMap(CaptureMethod.init(rawValue:)) ?? .automatic
        screenWidth = try arguments.integer(Self.width.name, in: RenderOptions.minimumWidth...120) ?? CheckoutRenderOptions.defaultWidth
        json = arguments.flag(CommonOptions.json.name)
        forcesLines = arguments.flag(Self.lines.name)
        serverURL = arguments.value(ServerCheckout.server.name)
        if serverURL != nil && (notificationFile != nil || updateFile != nil) {
            throw UsageError("'--server' shows the push payload the server builds for its checkout: leave out --notification and --update")
        }
        if serverURL == nil && arguments.value(ServerCheckout.apiKey.name) != nil {
            throw UsageError("'--api-key' is the key for '--server <url>': give the server too")
        }
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let console = context.console
        let environment = context.environment
        let clock = try arguments.clock(environment: environment)
        if let serverURL {
            let key = try ServerCheckout.key(arguments, environment: environment)
            let (payload, backend) = try await ServerCheckout.open(url: serverURL, key: key, captureMethod: captureMethod, clock: clock, console: console)
            let configuration = CheckoutFlowConfiguration(
                wallet: .standard(now: clock.now()), captureMethod: captureMethod, nextSteps: .server(address: backend.connection.address))
            let session = CheckoutSession(
                flow: try CheckoutFlow(payload: payload, configuration: configuration), backend: backend, updates: nil, clock: clock,
                width: screenWidth)
            return try await run(session, context)
        }
        let payload = try notificationFile.map { try NotifyInput.deliverablePayload($0, console: console) }
            ?? PaymentActionPayloadBuilder().build()
        let update = try updateFile.map { try NotifyInput.deliverablePayload($0, console: console, what: "update payload") }

        let service = try arguments.openPaymentService(environment: environment, clock: clock)
        let backend = CheckoutBackend.demo(service: service, clock: clock)
        let database = try arguments.openDatabase(environment: environment, clock: clock)
        let watcher = try PanelUpdateWatcher(
            scheduler: NotificationScheduler(database: database, clock: clock), update: update,
            dueAt: clock.now().addingTimeInterval(updateDelay))
        let configuration = CheckoutFlowConfiguration(
            wallet: .standard(now: clock.now()), captureMethod: captureMethod,
            nextSteps: .commands(options: commandOptions(environment)))
        let session = CheckoutSession(
            flow: try CheckoutFlow(payload: payload, configuration: configuration), backend: backend, updates: watcher, clock: clock,
            width: screenWidth)

        return try await run(session, context)
    }

    /// The full-screen checkout on a terminal, else the line checkout.
    @MainActor private func run(_ session: CheckoutSession, _ context: CommandContext) async throws -> ExitStatus {
        let ending: CheckoutSessionEnding
        if !forcesLines && !json && RawTerminal.isInteractive(environment: context.environment) {
            ending = try await TerminalCheckout(session: session, console: context.console).run()
        } else {
            ending = try await LineCheckout(session: session, console: context.console, json: json).run()
        }
        return ExitStatus(code: ending.exitCode)
    }

    /// The options the suggested commands need to reach the same databases.
    private func commandOptions(_ environment: [String: String]) -> String {
        var options: [String] = []
        let database = arguments.databasePath(environment: environment)
        if database != CommonOptions.defaultDatabasePath { options.append("--db \(Self.shellQuoted(database))") }
        let ledger = arguments.processorDatabasePath(environment: environment)
        if ledger != ProcessorLedger.defaultPath { options.append("--processor-db \(Self.shellQuoted(ledger))") }
        return options.joined(separator: " ")
    }

    /// `path`, quoted for a POSIX shell when it holds anything but safe characters.
    static func shellQuoted(_ path: String) -> String {
        let safe = path.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+:@%".contains($0)) }
        return safe && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
