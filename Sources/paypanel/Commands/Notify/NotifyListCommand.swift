import PayPanel

/// `paypanel notify list [--state pending|delivered|responded] [--db PATH] [--json]`
struct NotifyListCommand: CLICommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the scheduled notifications and where each is: pending, delivered or responded.",
        options: [
            .value("--state", "state", help: "Only pending, delivered or responded notifications."),
            CommonOptions.database, CommonOptions.now, CommonOptions.json,
        ],
        aliases: ["ls"])

    let arguments: ParsedArguments
    let state: ScheduledNotification.State?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        state = try arguments.choice("--state", from: ["pending", "delivered", "responded"])
            .flatMap(ScheduledNotification.State.init(rawValue:))
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let clock = try arguments.clock(environment: context.environment)
        let database = try arguments.openDatabase(environment: context.environment, clock: clock)
        let notifications = try NotificationScheduler(database: database, clock: clock).list(state: state)
        if json {
            console.printJSON(.array(notifications.map(\.json)))
            return .success
        }
        guard !notifications.isEmpty else {
            console.print("no notifications\(state.map { " in state \($0.rawValue)" } ?? "")")
            return .success
        }
        console.print("ID    STATE      DELIVER AT                CATEGORY        TITLE")
        for notification in notifications {
            let title = (notification.displayedContent.title ?? notification.displayedContent.body ?? "")
                .sanitizedForTerminal().truncated(toColumns: 30)
            var state = notification.state.rawValue
            if let action = notification.responseAction { state += " \(action)" }
            let hidden = notification.request.bodyHidden ? " [body hidden]" : ""
            console.print(String(notification.id).padded(toColumns: 6) + state.padded(toColumns: 11)
                + Timestamp.format(notification.request.deliverAt).padded(toColumns: 26)
                + (notification.request.category ?? "-").padded(toColumns: 16) + title + hidden)
        }
        return .success
    }
}
