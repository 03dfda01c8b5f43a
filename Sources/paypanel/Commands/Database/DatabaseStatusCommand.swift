import Foundation
import PayPanel
#if PostgreSQL
import PayPanelPostgres
#endif

/// `paypanel db status [--db PATH] [--json]`
struct DatabaseStatusCommand: CLICommand {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show the migrations a payments database has applied, their checksums, and the pending ones.",
        discussion: "Reads only: a missing database is reported with every migration pending, and is not created.",
        options: [CommonOptions.database, CommonOptions.json, CommonOptions.now])

    let arguments: ParsedArguments
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let location = try arguments.storeLocation(environment: context.environment)
        let exists: Bool
        var applied: [Migrator.AppliedMigration] = []
        var pending = MigrationSet.main.migrations
        switch location {
        case .sqlite(let path):
            exists = FileManager.default.fileExists(atPath: path)
            if exists {
                let database = try Database(path: path, options: Database.Options(readOnly: true, create: false))
                let status = try Migrator(set: .main).status(database)
                applied = status.applied
                pending = status.pending
            }
        case .postgreSQL(let url, let schema):
            #if PostgreSQL
            let found = try PostgreSQLSchemaMigrations.status(url: url, schema: schema)
            exists = found.schemaExists
            applied = found.status.applied
            pending = found.status.pending
            #else
            _ = (url, schema)
            throw StoreLocation.postgreSQLNotBuilt
            #endif
        }
        let path = location.displayName
        let console = context.console
        if json {
            console.printJSON(JSONValue.orderedObject([
                ("database", .string(path)),
                ("exists", .bool(exists)),
                ("applied", .array(applied.map(\.json))),
                ("pending", .array(pending.map { JSONValue.orderedObject([("identifier", .string($0.identifier)), ("checksum", .string($0.checksum))]) })),
            ]))
            return .success
        }
        console.print("Database: \(path)\(exists ? "" : " (does not exist yet: any command creates it)")")
        console.print(applied.isEmpty ? "Applied: none" : "Applied:")
        let width = (applied.map(\.identifier) + pending.map(\.identifier)).map(\.count).max() ?? 0
        for migration in applied {
            console.print("  \(migration.identifier.padding(toLength: width, withPad: " ", startingAt: 0))  \(migration.checksum)  \(Timestamp.format(migration.appliedAt))")
        }
        console.print(pending.isEmpty ? "Pending: none" : "Pending:")
        for migration in pending {
            console.print("  \(migration.identifier.padding(toLength: width, withPad: " ", startingAt: 0))  \(migration.checksum)")
        }
        return .success
    }
}
