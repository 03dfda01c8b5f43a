import PayPanel

/// `paypanel notify deliver [--limit N] [--width N] [--db PATH] [--now TIME] [--json]`
struct NotifyDeliverCommand: CLICommand {
    static let spec = CommandSpec(
        name: "deliver",
        abstract: "Deliver the scheduled notifications that are due now, and print them.",
        discussion: """
            Each notification is delivered exactly once, even with several 'notify deliver' running \
            on one database. A hidden body is shown as a placeholder until show-me. An open checkout \
            on the same database picks up delivered notifications for its panel.
            """,
        options: [
            .value("--limit", "n", help: "Deliver at most this many (the oldest first)."),
            NotifyInput.width,
            CommonOptions.database, CommonOptions.now, CommonOptions.json,
        ])

    let arguments: ParsedArguments
    let limit: Int?
    let width: Int
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        limit = try arguments.integer("--limit", in: 1...1_000_000)
        width = try NotifyInput.width(arguments)
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let clock = try arguments.clock(environment: context.environment)
        let database = try arguments.openDatabase(environment: context.environment, clock: clock)
        let scheduler = NotificationScheduler(database: database, clock: clock)
        let delivered = try scheduler.deliverDue(limit: limit)
        if json {
            console.printJSON(.array(delivered.map(\.json)))
            return .success
        }
        if delivered.isEmpty {
            let next = try scheduler.nextPending()
            let nextText = next.map { "; the next, \($0.id), is due at \(Timestamp.format($0.request.deliverAt))" } ?? ""
            console.print("nothing due at \(Timestamp.format(clock.now()))\(nextText)")
            return .success
        }
        for notification in delivered {
            let category = notification.request.category.map { " (\($0))" } ?? ""
            console.print("notification \(notification.id)\(category) delivered at \(Timestamp.format(clock.now())):")
            console.print(NotificationRenderer.banner(notification.displayedContent, options: RenderOptions(width: width)).plainText, terminator: "")
            if let name = notification.request.category, let actions = NotificationCategory.named(name)?.actions {
                let list = actions.map { "\($0.identifier) (\($0.title))" }.joined(separator: ", ")
                console.print("  actions: \(list) — paypanel notify respond \(notification.id) <action>")
            }
        }
        return .success
    }
}
