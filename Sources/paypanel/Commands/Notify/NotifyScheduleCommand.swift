import Foundation
import PayPanel

/// `paypanel notify schedule (--title T --body B | --payload FILE) [--hide-body] [--category C] (--at TIME | --in S)`
struct NotifyScheduleCommand: CLICommand {
    static let spec = CommandSpec(
        name: "schedule",
        abstract: "Schedule a notification in the database, to be shown by 'notify deliver' when due.",
        discussion: """
            Either text (--title, --body, optional --subtitle) or a whole push payload (--payload, e.g. \
            from 'notify build': a panel or a panel update, which an open checkout applies when it is \
            delivered). --hide-body delivers a placeholder instead of the body until the user answers \
            with show-me (category REVEAL, the default with --hide-body); the body then arrives 3 \
            seconds later.
            """,
        options: [
            .value("--title", "text", help: "The title."),
            .value("--subtitle", "text", help: "The subtitle."),
            .value("--body", "text", help: "The body."),
            .value("--payload", "file", help: "A push payload to deliver as is (title, body, category, thread-id and panel come from it)."),
            .flag("--hide-body", help: "Hide the body until show-me (category REVEAL)."),
            .value("--category", "name", help: "PAYMENT_ACTION (buy-apple-pay, pay-in-app) or REVEAL (show-me)."),
            .value("--thread-id", "id", help: "The thread; an open panel with this thread-id picks the notification up."),
            .value("--order", "reference", help: "The order reference; an open panel for this order picks the notification up."),
            .value("--user-info", "json", help: "App data carried with the notification: a JSON object."),
            .value("--at", "time", help: "Deliver from this ISO-8601 time."),
            .value("--in", "seconds", help: "Deliver this many seconds after now."),
            CommonOptions.database, CommonOptions.now, CommonOptions.json,
        ],
        combinations: "(--title <text> --body <text> | --payload <file>) (--at <time> | --in <seconds>)")

    let arguments: ParsedArguments
    let payloadFile: String?
    let category: String?
    let hideBody: Bool
    let userInfo: JSONObject
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        payloadFile = arguments.value("--payload")
        hideBody = arguments.flag("--hide-body")
        json = arguments.flag(CommonOptions.json.name)
        let textGiven = ["--title", "--subtitle", "--body", "--thread-id", "--order"].filter { arguments.value($0) != nil }
        if payloadFile != nil {
            if let first = textGiven.first { throw UsageError("'\(first)' comes from the payload; do not combine it with '--payload'") }
            if arguments.value("--category") != nil { throw UsageError("'--category' comes from the payload; do not combine it with '--payload'") }
        } else if arguments.value("--title") == nil || arguments.value("--body") == nil {
            throw UsageError("give '--title' and '--body', or '--payload'")
        }
        if arguments.value("--at") != nil && arguments.value("--in") != nil {
            throw UsageError("give either '--at' or '--in', not both")
        }
        if arguments.value("--at") == nil && arguments.value("--in") == nil {
            throw UsageError("say when: '--at <time>' or '--in <seconds>'")
        }
        var category = arguments.value("--category")
        if hideBody && category == nil && payloadFile == nil { category = NotificationCategory.reveal.identifier }
        if let name = category, NotificationCategory.named(name) == nil {
            throw UsageError("unknown category '\(name)': use \(NotificationCategory.all.map(\.identifier).joined(separator: " or "))")
        }
        self.category = category
        var info = JSONObject()
        if let text = arguments.value("--user-info") {
            guard let object = (try? JSONParser().parse(text))?.objectValue else {
                throw UsageError("'--user-info' takes a JSON object, e.g. '{\"orderReference\":\"A1001\"}'")
            }
            info = object
        }
        userInfo = info
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let clock = try arguments.clock(environment: context.environment)
        let deliverAt = try deliveryTime(now: clock.now())
        var request: NotificationRequest
        if let payloadFile {
            let payload = try NotifyInput.deliverablePayload(payloadFile, console: console)
            request = NotificationRequest(payload: payload, deliverAt: deliverAt, bodyHidden: hideBody, userInfo: userInfo)
        } else {
            request = NotificationRequest(
                deliverAt: deliverAt, category: category,
                content: NotificationContent(title: arguments.value("--title"), subtitle: arguments.value("--subtitle"), body: arguments.value("--body")),
                bodyHidden: hideBody, threadID: arguments.value("--thread-id"), orderReference: arguments.value("--order"),
                userInfo: userInfo)
        }
        let database = try arguments.openDatabase(environment: context.environment, clock: clock)
        let scheduled = try NotificationScheduler(database: database, clock: clock).schedule(request)
        if json {
            console.printJSON(scheduled.json)
        } else {
            let category = scheduled.request.category.map { " (\($0))" } ?? ""
            console.print("scheduled notification \(scheduled.id)\(category) for \(Timestamp.format(scheduled.request.deliverAt))")
        }
        return .success
    }

    private func deliveryTime(now: Date) throws -> Date {
        if let text = arguments.value("--at") {
            do {
                return try Timestamp.parse(text)
            } catch {
                throw UsageError("'--at': \(error.message)")
            }
        }
        let delay = try NotifyInput.seconds(arguments.value("--in"), option: "--in", range: 0...31_536_000) ?? .zero
        let milliseconds = delay.wholeMilliseconds
        return now.addingTimeInterval(TimeInterval(milliseconds) / 1000)
    }
}
