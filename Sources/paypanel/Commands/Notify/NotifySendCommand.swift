import Foundation
import PayPanel

/// `paypanel notify send PAYLOAD --device HEX --apns-key-file P8 --apns-key-id ID --apns-team-id ID --apns-topic T …`
struct NotifySendCommand: CLICommand {
    static let spec = CommandSpec(
        name: "send",
        abstract: "Send one push to one device token through APNs: exit 0 and the apns-id when sent, exit 1 and APNs' reason when refused.",
        discussion: """
            The payload is validated first (as 'notify validate' does). One attempt, with one new provider \
            token if APNs refuses the first; nothing is stored. See docs/notifications.md for the reasons \
            APNs gives and what they mean.
            """,
        arguments: [.required("payload", help: "The payload JSON file, or - for standard input.")],
        options: [
            .value("--device", "hex", help: "The device token, hex."),
            .value("--collapse-id", "id", help: "apns-collapse-id: a later push with the same id replaces this one."),
            .value("--expiration", "unix-seconds", help: "apns-expiration (default 0: now or never)."),
            CommonOptions.json, CommonOptions.now,
        ] + APNsOptions.all)

    let arguments: ParsedArguments
    let payloadFile: String
    let device: String

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        payloadFile = arguments.positional(0) ?? "-"
        guard let device = arguments.value("--device") else { throw UsageError("'--device' is required: the device token in hex") }
        self.device = device
        guard arguments.value(APNsOptions.topic.name) != nil else { throw UsageError("'--apns-topic' is required: the app's bundle id") }
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        guard let provider = try arguments.apnsProvider(clock: clock) else {
            throw UsageError("sending needs --apns-key-file, --apns-key-id and --apns-team-id")
        }
        let payload = try NotifyInput.deliverablePayload(payloadFile, console: context.console)
        let expiration = try arguments.integer("--expiration", in: 0...253_402_300_799).map { Date(timeIntervalSince1970: TimeInterval($0)) }
        let notification = try APNsNotification(
            deviceToken: device, topic: arguments.value(APNsOptions.topic.name)!, apnsID: UUID().uuidString,
            collapseID: arguments.value("--collapse-id"), expiration: expiration,
            payload: Array(JSONWriter.string(.object(payload.document), style: .compact).utf8))
        let json = arguments.flag(CommonOptions.json.name)
        switch await provider.send(notification) {
        case .answered(let response) where response.action == .sent:
            let apnsID = response.apnsID ?? notification.apnsID
            if json {
                context.console.printJSON(.orderedObject([("status", "sent"), ("apns_id", .string(apnsID))]), pretty: false)
            } else {
                context.console.print(apnsID)
            }
            return .success
        case .answered(let response):
            let reason = response.reason ?? "HTTP \(response.status)"
            if json {
                context.console.printJSON(.orderedObject([
                    ("status", "refused"), ("http_status", .number(response.status)), ("reason", .string(reason)),
                    ("action", .string(response.action.rawValue)), ("apns_id", .string(response.apnsID ?? notification.apnsID)),
                ]), pretty: false)
            }
            throw CLIFailure(code: "apns_refused", message: "APNs refused the push: \(response.status) \(reason) (\(Self.explain(response.action)))")
        case .unreachable(let reason):
            throw CLIFailure(code: "apns_unreachable", message: reason)
        case .signingFailed(let reason):
            throw CLIFailure(code: "apns_signing_failed", message: "the provider token could not be signed: \(reason)")
        }
    }

    static func explain(_ action: APNsAction) -> String {
        switch action {
        case .sent: "sent"
        case .deviceDead: "the device token will never work again: drop it"
        case .refreshProviderToken: "the provider token was refused twice: check the key file, --apns-key-id and --apns-team-id"
        case .retry: "APNs is busy or down: try again later"
        case .reject: "the request is wrong; resending it unchanged cannot succeed"
        }
    }
}
