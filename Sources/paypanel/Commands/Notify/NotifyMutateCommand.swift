import PayPanel

/// `paypanel notify mutate FILE [--network wifi|cellular] [--attachments DIR] [--deadline S] [--json]`
struct NotifyMutateCommand: CLICommand {
    static let spec = CommandSpec(
        name: "mutate",
        abstract: "Run the notification service extension on a payload and print what the device shows, as JSON.",
        discussion: """
            Only for mutable-content 1. Reads the Getui-style 'payload' string, sets the subtitle, \
            picks imageUrl, else videoUrl (on Wi-Fi only), else gifUrl, and fetches it within the \
            deadline: a path or file:// URL inside the attachments directory, an http:// URL, or an \
            https:// URL (URLSession, trusting the system's CA bundle; a TLS failure is a fallback \
            with fallbackCode fetch_tls_failed). The file is kept only when its extension and its \
            real type agree and it is within the limit for its type. Otherwise the original content \
            plus subtitle is delivered with a fallbackReason. Output: title, subtitle, body, \
            attachment {identifier, file, type, byteCount, source} or null, fallbackReason, \
            fallbackCode, extensionRan. Exit 0 whenever something is delivered.
            """,
        arguments: [.required("file", help: "The payload JSON, or - for standard input.")],
        options: [
            .value("--network", "wifi|cellular", help: "The device's network (default: wifi). Video is only fetched on Wi-Fi."),
            .value("--attachments", "dir", help: "Where relative paths are read from and downloads are saved (default: the current directory). Local files outside it are refused."),
            .value("--deadline", "seconds", help: "How long fetching may take, at most 30 (default: 25 of the system's 30-second budget)."),
            .flag("--json", help: "Print compact single-line JSON (default: indented)."),
        ])

    let file: String
    let network: NotificationServiceExtension.Network
    let attachments: String
    let deadline: Duration
    let compact: Bool

    init(arguments: ParsedArguments) throws {
        file = arguments.positional(0) ?? "-"
        let networkName = try arguments.choice("--network", from: NotificationServiceExtension.Network.allCases.map(\.rawValue))
        network = networkName.flatMap(NotificationServiceExtension.Network.init(rawValue:)) ?? .wifi
        attachments = arguments.value("--attachments") ?? "."
        deadline = try NotifyInput.seconds(arguments.value("--deadline"), option: "--deadline", range: 0.001...30)
            ?? NotificationServiceExtension.defaultDeadline
        compact = arguments.flag("--json")
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let payload = try NotifyInput.deliverablePayload(file, console: context.console)
        let serviceExtension = NotificationServiceExtension(
            fetcher: StandardMediaFetcher(attachmentsDirectory: attachments), store: AttachmentStore(directory: attachments),
            network: network, deadline: deadline)
        let delivered = serviceExtension.mutate(payload)
        context.console.printJSON(delivered.json, pretty: !compact)
        return .success
    }
}
