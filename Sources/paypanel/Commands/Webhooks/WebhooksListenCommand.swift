import Foundation
import PayPanel
import PayPanelHTTP
import PayPanelServer

/// `paypanel webhooks listen --port N --secret whsec_… [--respond CODE] [--host H] [--json]`
struct WebhooksListenCommand: CLICommand {
    static let spec = CommandSpec(
        name: "listen",
        abstract: "Receive webhooks locally: verify each signature and timestamp (±5 min), print the event, answer 200 or --respond.",
        discussion: """
            Prints 'listening on http://HOST:PORT' first, then one line per delivery on standard output \
            (with --json the event itself, one JSON object a line); refused deliveries go to standard error \
            with the reason, answered 400. A webhook-id seen before is marked duplicate. SIGTERM or SIGINT \
            stops it (exit 0). Point an endpoint at it: 'paypanel webhooks add http://127.0.0.1:PORT/' and \
            serve --allow-private-webhooks.
            """,
        options: [
            .value("--port", "port", help: "The port to listen on; 0 picks a free one (default: 8090)."),
            .value("--host", "address", help: "The address to listen on (default: 127.0.0.1)."),
            .value("--secret", "whsec_…", help: "The endpoint's signing secret (or $PAYPANEL_WEBHOOK_SECRET)."),
            .value("--secret-file", "path", help: "Read the secret from this file on every delivery instead (kept out of the process list; may be written or rotated while listening)."),
            .value("--respond", "code", help: "The status to answer verified deliveries with, e.g. 500 or 410 to try the retries (default: 200)."),
            CommonOptions.json, CommonOptions.now,
        ],
        combinations: "(--secret <whsec_…> | --secret-file <path>)")

    let arguments: ParsedArguments
    let secret: @Sendable () -> WebhookSecret?
    let port: Int
    let respond: Int

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        port = try arguments.integer("--port", in: 0...65535) ?? 8090
        respond = try arguments.integer("--respond", in: 200...599) ?? 200
        if let path = arguments.value("--secret-file"), !path.isEmpty {
            secret = {
                guard let data = FileManager.default.contents(atPath: path), data.count < 1024 else { return nil }
                return try? WebhookSecret(parsing: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return
        }
        let text = arguments.value("--secret") ?? ProcessInfo.processInfo.environment["PAYPANEL_WEBHOOK_SECRET"] ?? ""
        guard !text.isEmpty else {
            throw UsageError("'--secret' or '--secret-file' is required: the endpoint's whsec_… secret from 'paypanel webhooks add'")
        }
        do {
            let parsed = try WebhookSecret(parsing: text)
            secret = { parsed }
        } catch {
            throw UsageError("'--secret': \(error.message)")
        }
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let host = arguments.value("--host") ?? "127.0.0.1"
        let json = arguments.flag(CommonOptions.json.name)
        let signals = TerminationSignals()
        let listener: WebhookListener
        do {
            listener = try WebhookListener(host: host, port: port, secret: secret, respond: respond, clock: clock) { delivery in
                Self.report(delivery, json: json)
            }
        } catch let error as HTTPServerError {
            throw ListenFailure.failure(error, port: port)
        }
        context.console.print("listening on http://\(host.contains(":") ? "[\(host)]" : host):\(listener.port)")
        context.console.flush()
        _ = await signals.wait()
        await listener.shutdown()
        return .success
    }

    /// One line per delivery, written at once (the listener's threads call this).
    @Sendable static func report(_ delivery: WebhookListener.Delivery, json: Bool) {
        if let refusal = delivery.refusal {
            let line = "refused \(delivery.webhookID.map { JSONWriter.quoted(SensitiveDigits.redacted($0)) } ?? "(no webhook-id)"): \(refusal.code): \(refusal.message)\n"
            FileHandle.standardError.write(Data(line.utf8))
            return
        }
        let event = delivery.event ?? .null
        let line: String
        if json {
            line = JSONWriter.string(event)
        } else {
            let type = event["type"]?.stringValue ?? "?"
            let object = event["data"]?["object"]
            let summary = [object?["id"]?.stringValue, object?["status"]?.stringValue].compactMap { $0 }.joined(separator: " ")
            line = "\(delivery.webhookID ?? "?")  \(type)  \(summary)\(delivery.duplicate ? "  (duplicate)" : "")  → \(delivery.answeredStatus)"
        }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
