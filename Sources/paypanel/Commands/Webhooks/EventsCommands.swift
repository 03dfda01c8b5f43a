import Foundation
import PayPanel
import PayPanelServer

/// `paypanel events list [--type T] [--limit N] [--json] [--db PATH]`
struct EventsListCommand: CLICommand {
    static let spec = CommandSpec(
        name: "list", abstract: "List events (what webhooks deliver), newest first.",
        options: [
            .value("--type", "type", help: "Only events of this type, e.g. payment_intent.succeeded."),
            .value("--limit", "n", help: "At most this many (default: 20)."),
            CommonOptions.json, CommonOptions.database, WebhookKeyOptions.keyFile, CommonOptions.now,
        ], aliases: ["ls"])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        if let type = arguments.value("--type"), !EventTypes.all.contains(type) {
            throw UsageError("'--type' must be one of \(EventTypes.all.joined(separator: ", "))")
        }
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let opening = try WebhookOpening(arguments: arguments, environment: context.environment, clock: clock)
        try await opening.publishPending()
        let store = try opening.openStore()
        let events = try store.events(type: arguments.value("--type"), page: .first, limit: try arguments.integer("--limit", in: 1...10_000) ?? 20)
        if arguments.flag(CommonOptions.json.name) {
            context.console.printJSON(.array(events.map(EventsAPI.json)))
        } else {
            for event in events {
                context.console.print("\(event.id)  \(Timestamp.format(event.createdAt))  \(event.type)  \(event.objectID)")
            }
        }
        return .success
    }
}

/// `paypanel events show ID [--json] [--db PATH]`: the body as delivered, and its deliveries.
struct EventsShowCommand: CLICommand {
    static let spec = CommandSpec(
        name: "show", abstract: "Show an event as delivered, with each endpoint's delivery and attempts.",
        arguments: [.required("id", help: "The event id (evt_…), from 'paypanel events list'.")],
        options: [CommonOptions.json, CommonOptions.database, WebhookKeyOptions.keyFile, CommonOptions.now])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let opening = try WebhookOpening(arguments: arguments, environment: context.environment, clock: clock)
        try await opening.publishPending()
        let store = try opening.openStore()
        let id = arguments.positional(0) ?? ""
        guard let event = try store.event(id) else {
            throw CLIFailure(code: "event_not_found", message: "no event \(JSONWriter.quoted(SensitiveDigits.redacted(id))): list them with 'paypanel events list'")
        }
        let deliveries = try store.deliveries(ofEvent: id)
        if arguments.flag(CommonOptions.json.name) {
            var members: [(String, JSONValue)] = [("event", EventsAPI.json(event))]
            members.append(("deliveries", .array(try deliveries.map { delivery in
                .orderedObject([
                    ("endpoint", .string(delivery.endpointID)), ("status", .string(delivery.status.rawValue)),
                    ("attempts", .array(try store.attempts(ofDelivery: delivery.id).map(Self.attemptJSON))),
                    ("next_attempt_at", delivery.status == .pending ? delivery.nextAttemptAt.map { .string(Timestamp.format($0)) } ?? .null : .null),
                ])
            })))
            context.console.printJSON(.orderedObject(members))
            return .success
        }
        context.console.print(JSONWriter.string(EventsAPI.json(event), style: .pretty))
        for delivery in deliveries {
            let next = delivery.status == .pending ? delivery.nextAttemptAt.map { "  next \(Timestamp.format($0))" } ?? "" : ""
            context.console.print("\(delivery.endpointID)  \(delivery.status.rawValue)  \(delivery.attempts) attempt(s)\(next)")
            for attempt in try store.attempts(ofDelivery: delivery.id) {
                let code = attempt.responseCode.map { "HTTP \($0)" } ?? "no response"
                context.console.print("  #\(attempt.attempt)  \(Timestamp.format(attempt.startedAt))  \(attempt.outcome.rawValue)  \(code)  \(attempt.durationMilliseconds) ms\(attempt.error.map { "  \($0)" } ?? "")")
            }
        }
        return .success
    }

    static func attemptJSON(_ attempt: WebhookAttemptRecord) -> JSONValue {
        .orderedObject([
            ("attempt", .number(attempt.attempt)), ("started_at", .string(Timestamp.format(attempt.startedAt))),
            ("outcome", .string(attempt.outcome.rawValue)), ("response_code", attempt.responseCode.map { .number($0) } ?? .null),
            ("duration_ms", .number(attempt.durationMilliseconds)), ("error", .optional(attempt.error)),
        ])
    }
}
