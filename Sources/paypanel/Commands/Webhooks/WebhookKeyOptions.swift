import Foundation
import PayPanel

/// Where the key that seals webhook secrets comes from. SQLite keeps it beside its file
/// (`<db>.webhook-key`, created on first use); PostgreSQL has no file to stand beside, and every
/// server on one database must seal and open with the same key, so there it is a file the
/// operator makes once and gives to every server: `--webhook-key-file` or
/// `$PAYPANEL_WEBHOOK_KEY_FILE`. A given file is only ever read, never created: a server that
/// made its own would seal secrets no other server can open.
enum WebhookKeyOptions {
    static let keyFile = OptionSpec.value(
        "--webhook-key-file", "path",
        help: "The 32-byte key that seals webhook secrets (or $PAYPANEL_WEBHOOK_KEY_FILE); required on PostgreSQL, the same file on every server (default on SQLite: <db>.webhook-key, created on first use).")
    static let environmentVariable = "PAYPANEL_WEBHOOK_KEY_FILE"

    enum Source: Equatable {
        /// SQLite's default, read or created.
        case besideDatabase(String)
        /// A file given by flag or environment: read only.
        case file(String)
        /// PostgreSQL, and nothing given.
        case missing
    }

    static func source(arguments: ParsedArguments, environment: [String: String], location: StoreLocation) -> Source {
        let given = arguments.spec.option(named: keyFile.name) != nil ? arguments.value(keyFile.name) : nil
        if let path = given ?? environment[environmentVariable], !path.isEmpty { return .file(path) }
        switch location {
        case .sqlite(let path): return .besideDatabase(WebhookKeyFile.path(forDatabase: path))
        case .postgreSQL: return .missing
        }
    }

    static let howToMakeOne = "make one with '(umask 077; head -c 32 /dev/urandom > webhook.key)' and give every server the same file"

    /// The key in `path`: exactly 32 bytes.
    static func load(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure(
                code: "webhook_key_missing",
                message: "cannot read the webhook key file \(path) (\(keyFile.name) or $\(environmentVariable)): no such file or not readable; \(howToMakeOne)")
        }
        guard data.count == 32 else {
            throw CLIFailure(
                code: "webhook_key_invalid",
                message: "\(path) is not a webhook key file: it holds \(data.count) bytes, not 32; \(howToMakeOne)")
        }
        return Array(data)
    }

    static func missingKeyFailure() -> CLIFailure {
        CLIFailure(
            code: "webhook_key_missing",
            message: "on PostgreSQL the key that seals webhook secrets is not kept in the database: pass \(keyFile.name) PATH or set $\(environmentVariable); \(howToMakeOne)")
    }
}
