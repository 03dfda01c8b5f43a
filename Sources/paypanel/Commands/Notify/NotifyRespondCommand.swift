import PayPanel

/// `paypanel notify respond ID ACTION [--db PATH] [--now TIME] [--json]`
struct NotifyRespondCommand: CLICommand {
    static let spec = CommandSpec(
        name: "respond",
        abstract: "Answer a delivered notification with one of its category's actions.",
        discussion: """
            PAYMENT_ACTION offers buy-apple-pay and pay-in-app; REVEAL offers show-me, which \
            re-delivers a hidden body 3 seconds later. A notification is answered once.
            """,
        arguments: [
            .required("id", help: "The notification's id (see 'notify list')."),
            .required("action", help: "The action: buy-apple-pay, pay-in-app or show-me."),
        ],
        options: [CommonOptions.database, CommonOptions.now, CommonOptions.json])

    let arguments: ParsedArguments
    let id: Int64
    let action: String
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        let idText = arguments.positional(0) ?? ""
        guard let id = Int64(idText), id > 0 else {
            throw UsageError("'<id>' is a notification id (a whole number from 1), not '\(idText)'")
        }
        self.id = id
        action = arguments.positional(1) ?? ""
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let database = try arguments.openDatabase(environment: context.environment, clock: clock)
        let response = try NotificationScheduler(database: database, clock: clock).respond(id: id, action: action)
        if json {
            context.console.printJSON(response.json)
        } else {
            context.console.print("notification \(id): \(response.action.identifier) (\(response.action.title)): \(response.outcome)")
        }
        return .success
    }
}
