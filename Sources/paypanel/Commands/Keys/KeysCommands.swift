import Foundation
import PayPanel

/// `paypanel keys create [--name N] [--json] [--db PATH]`
struct KeysCreateCommand: CLICommand {
    static let spec = CommandSpec(
        name: "create",
        abstract: "Create a secret API key for the HTTP API; it is printed once and only its hash is stored.",
        options: [.value("--name", "name", help: "What the key is for (default: default)."), CommonOptions.json, CommonOptions.database, CommonOptions.now])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let ring = APIKeyRing(store: try arguments.openStoreFactory(environment: context.environment, clock: clock).openAPIKeyStore())
        let created = try ring.create(name: arguments.value("--name") ?? "default", at: clock.now())
        if arguments.flag(CommonOptions.json.name) {
            context.console.printJSON(.orderedObject([
                ("id", .string(created.record.id)), ("name", .string(created.record.name)), ("key", .string(created.key)),
            ]))
        } else {
            context.console.print("\(created.record.id)  \(created.record.name)")
            context.console.print(created.key)
            context.console.printError("note: the key is shown this once; only its SHA-256 is stored")
        }
        return .success
    }
}

/// `paypanel keys list [--json] [--db PATH]`: ids, names, times; never a key.
struct KeysListCommand: CLICommand {
    static let spec = CommandSpec(
        name: "list", abstract: "List API keys (ids, names, created and revoked times; never the keys).",
        options: [CommonOptions.json, CommonOptions.database, CommonOptions.now], aliases: ["ls"])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let ring = APIKeyRing(store: try arguments.openStoreFactory(environment: context.environment, clock: clock).openAPIKeyStore())
        let keys = try ring.list()
        if arguments.flag(CommonOptions.json.name) {
            context.console.printJSON(.array(keys.map { key in
                .orderedObject([
                    ("id", .string(key.id)), ("name", .string(key.name)), ("created_at", .string(Timestamp.format(key.createdAt))),
                    ("revoked_at", key.revokedAt.map { .string(Timestamp.format($0)) } ?? .null),
                ])
            }))
        } else {
            for key in keys {
                let state = key.revokedAt.map { "revoked \(Timestamp.format($0))" } ?? "active"
                context.console.print("\(key.id)  \(key.name)  created \(Timestamp.format(key.createdAt))  \(state)")
            }
        }
        return .success
    }
}

/// `paypanel keys revoke ID [--db PATH]`
struct KeysRevokeCommand: CLICommand {
    static let spec = CommandSpec(
        name: "revoke", abstract: "Revoke an API key: requests with it get 401 from then on.",
        arguments: [.required("id", help: "The key id (key_…), from 'paypanel keys list'.")],
        options: [CommonOptions.database, CommonOptions.now])

    let arguments: ParsedArguments
    let id: String

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let ring = APIKeyRing(store: try arguments.openStoreFactory(environment: context.environment, clock: clock).openAPIKeyStore())
        try ring.revoke(id: id, at: clock.now())
        context.console.print("revoked \(id)")
        return .success
    }
}
