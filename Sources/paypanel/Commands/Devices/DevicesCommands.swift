import Foundation
import PayPanel

/// `paypanel devices add --token HEX --topic BUNDLE [--environment development|production] [--json] [--db PATH]`
struct DevicesAddCommand: CLICommand {
    static let spec = CommandSpec(
        name: "add", abstract: "Register an APNs device token to push checkouts to; the same registration again gives the same device.",
        options: [
            .value("--token", "hex", help: "The device token, hex, as the app's registration gave it."),
            .value("--topic", "bundle-id", help: "The app's bundle id."),
            .value("--environment", "development|production", help: "The token's APNs environment (default: production)."),
            CommonOptions.json, CommonOptions.database, CommonOptions.now,
        ])

    let arguments: ParsedArguments
    let token: String
    let topic: String
    let environment: APNsEnvironment

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        guard let token = arguments.value("--token") else { throw UsageError("'--token' is required") }
        guard let topic = arguments.value("--topic") else { throw UsageError("'--topic' is required") }
        self.token = token
        self.topic = topic
        let name = try arguments.choice("--environment", from: APNsEnvironment.allCases.map(\.rawValue))
        environment = name.flatMap(APNsEnvironment.init(rawValue:)) ?? .production
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let outbox = PushOutbox(store: try arguments.openStoreFactory(environment: context.environment, clock: clock).openDeviceStore(),
                                provider: nil, clock: clock)
        let device = try await outbox.register(token: token, topic: topic, environment: environment)
        if arguments.flag(CommonOptions.json.name) {
            context.console.printJSON(DevicesText.json(device), pretty: false)
        } else {
            context.console.print(DevicesText.line(device))
        }
        return .success
    }
}

/// `paypanel devices list [--json] [--db PATH]`
struct DevicesListCommand: CLICommand {
    static let spec = CommandSpec(
        name: "list", abstract: "List registered devices: id, status (active or dead, with APNs' reason), topic, environment.",
        options: [CommonOptions.json, CommonOptions.database, CommonOptions.now], aliases: ["ls"])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let outbox = PushOutbox(store: try arguments.openStoreFactory(environment: context.environment, clock: clock).openDeviceStore(),
                                provider: nil, clock: clock)
        let devices = try await outbox.devices()
        if arguments.flag(CommonOptions.json.name) {
            context.console.printJSON(.array(devices.map(DevicesText.json)), pretty: false)
        } else {
            devices.forEach { context.console.print(DevicesText.line($0)) }
        }
        return .success
    }
}

enum DevicesText {
    static func json(_ device: Device) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(device.id)), ("token", .string(device.token)), ("topic", .string(device.topic)),
            ("environment", .string(device.environment.rawValue)), ("status", .string(device.isDead ? "dead" : "active")),
        ]
        if let dead = device.dead { members += [("dead_reason", .string(dead.reason)), ("dead_at", .string(Timestamp.format(dead.at)))] }
        members.append(("created_at", .string(Timestamp.format(device.createdAt))))
        return .orderedObject(members)
    }

    /// `dev_…  active  com.example.app  production  1a2b…9f`: the token shortened.
    static func line(_ device: Device) -> String {
        let state = device.dead.map { "dead (\($0.reason) at \(Timestamp.format($0.at)))" } ?? "active"
        return "\(device.id)  \(state)  \(device.topic)  \(device.environment.rawValue)  \(device.token.prefix(8))…\(device.token.suffix(4))"
    }
}
