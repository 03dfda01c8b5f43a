import Foundation
import PayPanel
#if PostgreSQL
import PayPanelPostgres
#endif

/// `paypanel db migrate [--db PATH] [--json] [--now TIME]`
struct DatabaseMigrateCommand: CLICommand {
    static let spec = CommandSpec(
        name: "migrate",
        abstract: "Create the payments database or apply its pending migrations.",
        discussion: """
            Every command migrates on open; this one does only that, and says what it applied. A \
            database migrated by a newer paypanel, or whose applied migration was edited, or that is \
            not a PayPanel database, is refused and left untouched.
            """,
        options: [CommonOptions.database, CommonOptions.json, CommonOptions.now])

    let arguments: ParsedArguments
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let location = try arguments.storeLocation(environment: context.environment)
        let appliedNow: [String]
        let status: Migrator.Status
        switch location {
        case .sqlite(let path):
            (appliedNow, status) = try Self.migrateSQLite(path: path, clock: clock)
        case .postgreSQL(let url, let schema):
            #if PostgreSQL
            (appliedNow, status) = try PostgreSQLSchemaMigrations.migrate(url: url, schema: schema, clock: clock)
            #else
            _ = (url, schema)
            throw StoreLocation.postgreSQLNotBuilt
            #endif
        }
        let name = location.displayName
        let console = context.console
        if json {
            console.printJSON(JSONValue.orderedObject([
                ("database", .string(name)),
                ("applied", .array(appliedNow.map(JSONValue.string))),
                ("migrations", .array(status.applied.map(\.json))),
            ]))
        } else if appliedNow.isEmpty {
            console.print("\(name) is up to date (\(status.applied.count) migrations applied).")
        } else {
            console.print("Applied \(appliedNow.joined(separator: ", ")) to \(name).")
        }
        return .success
    }

    private static func migrateSQLite(path: String, clock: any WallClock) throws -> (appliedNow: [String], status: Migrator.Status) {
        let database = try Database(path: path, options: Database.Options(writeAheadLog: false))
        let migrator = Migrator(set: .main, clock: clock)
        _ = try migrator.status(database)  // refuses foreign, newer or changed files before any write
        try database.enableWriteAheadLog()
        let appliedNow = try migrator.migrate(database)
        return (appliedNow, try migrator.status(database))
    }
}

extension Migrator.AppliedMigration {
    /// `{"identifier", "checksum", "appliedAt"}`.
    var json: JSONValue {
        JSONValue.orderedObject([
            ("identifier", .string(identifier)), ("checksum", .string(checksum)),
            ("appliedAt", .string(Timestamp.format(appliedAt))),
        ])
    }
}
