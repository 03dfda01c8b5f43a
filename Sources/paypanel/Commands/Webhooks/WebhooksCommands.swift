import Foundation
import PayPanel
import PayPanelServer

/// `paypanel webhooks add URL [--events T,…] [--json] [--db PATH]`
struct WebhooksAddCommand: CLICommand {
    static let spec = CommandSpec(
        name: "add", abstract: "Add a webhook endpoint; its signing secret (whsec_…) is printed once.",
        arguments: [.required("url", help: "Where to post events: https://… (http and private addresses need serve --allow-private-webhooks).")],
        options: [
            .value("--events", "types", help: "Comma-separated event types, or * for all (default: *)."),
            CommonOptions.json, CommonOptions.database, WebhookKeyOptions.keyFile, CommonOptions.now,
        ])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let opening = try WebhookOpening(arguments: arguments, environment: context.environment, clock: clock)
        let types = (arguments.value("--events") ?? "*").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let created = try opening.endpoints().create(url: arguments.positional(0) ?? "", eventTypes: types, at: clock.now())
        if arguments.flag(CommonOptions.json.name) {
            context.console.printJSON(created.record.apiJSON(secret: created.secret))
        } else {
            context.console.print("\(created.record.id)  \(created.record.url)  \(created.record.eventTypes.joined(separator: ","))")
            context.console.print(created.secret.revealed)
            context.console.printError("note: the secret is shown this once; verify deliveries with it (docs/webhooks.md)")
        }
        return .success
    }
}

/// `paypanel webhooks list [--json] [--db PATH]`: never a secret.
struct WebhooksListCommand: CLICommand {
    static let spec = CommandSpec(
        name: "list", abstract: "List webhook endpoints (ids, URLs, event types, status; never the secrets).",
        options: [CommonOptions.json, CommonOptions.database, WebhookKeyOptions.keyFile, CommonOptions.now], aliases: ["ls"])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let endpoints = try WebhookOpening(arguments: arguments, environment: context.environment, clock: clock).endpoints().list()
        if arguments.flag(CommonOptions.json.name) {
            context.console.printJSON(.array(endpoints.map { $0.apiJSON() }))
        } else {
            for endpoint in endpoints {
                let reason = endpoint.disabledReason.map { " (\($0))" } ?? ""
                context.console.print("\(endpoint.id)  \(endpoint.status.rawValue)\(reason)  \(endpoint.url)  \(endpoint.eventTypes.joined(separator: ","))")
            }
        }
        return .success
    }
}

/// `paypanel webhooks remove ID [--db PATH]`
struct WebhooksRemoveCommand: CLICommand {
    static let spec = CommandSpec(
        name: "remove", abstract: "Remove a webhook endpoint: nothing more is sent to it.",
        arguments: [.required("id", help: "The endpoint id (we_…).")], options: [CommonOptions.database, WebhookKeyOptions.keyFile, CommonOptions.now], aliases: ["rm"])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let id = arguments.positional(0) ?? ""
        try WebhookOpening(arguments: arguments, environment: context.environment, clock: clock).endpoints().remove(id, at: clock.now())
        context.console.print("removed \(id)")
        return .success
    }
}

/// `paypanel webhooks rotate-secret ID [--json] [--db PATH]`
struct WebhooksRotateSecretCommand: CLICommand {
    static let spec = CommandSpec(
        name: "rotate-secret",
        abstract: "Give an endpoint a new secret (printed once); the old one keeps signing beside it for 24 hours.",
        arguments: [.required("id", help: "The endpoint id (we_…).")],
        options: [CommonOptions.json, CommonOptions.database, WebhookKeyOptions.keyFile, CommonOptions.now])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let rotated = try WebhookOpening(arguments: arguments, environment: context.environment, clock: clock).endpoints()
            .rotateSecret(arguments.positional(0) ?? "", at: clock.now())
        if arguments.flag(CommonOptions.json.name) {
            context.console.printJSON(rotated.record.apiJSON(secret: rotated.secret))
        } else {
            context.console.print("\(rotated.record.id)  secret version \(rotated.record.secretVersion)")
            context.console.print(rotated.secret.revealed)
            let until = rotated.record.previousExpiresAt.map(Timestamp.format) ?? "-"
            context.console.printError("note: deliveries carry both signatures until \(until); switch the receiver to the new secret before then")
        }
        return .success
    }
}

/// `paypanel webhooks replay EVENT [--endpoint ID] [--db PATH]`
struct WebhooksReplayCommand: CLICommand {
    static let spec = CommandSpec(
        name: "replay",
        abstract: "Send an event again (a failed delivery, or one a receiver lost), with a fresh retry schedule; serve's worker sends it.",
        arguments: [.required("event", help: "The event id (evt_…).")],
        options: [
            .value("--endpoint", "id", help: "Only to this endpoint (default: every enabled endpoint that wants the event's type)."),
            CommonOptions.database, WebhookKeyOptions.keyFile, CommonOptions.now,
        ])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let opening = try WebhookOpening(arguments: arguments, environment: context.environment, clock: clock)
        try await opening.publishPending()
        let event = arguments.positional(0) ?? ""
        let targets = try opening.endpoints().replay(eventID: event, endpointID: arguments.value("--endpoint"), at: clock.now())
        if targets.isEmpty {
            context.console.printError("note: no enabled endpoint wants \(event)'s type; nothing queued")
            return .failure
        }
        for target in targets { context.console.print("queued \(event) for \(target)") }
        return .success
    }
}
