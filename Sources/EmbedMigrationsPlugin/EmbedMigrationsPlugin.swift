import Foundation
import PackagePlugin

/// Build-tool plugin: turns the target's `Migrations/**/*.sql` files into a generated Swift
/// source of the target, so the schema travels inside the binary.
///
/// Each target embeds only its own schema: `MockProcessor` the mock processor's ledger
/// (`Migrations/processor/`), `PayPanelPostgres` the payments database in PostgreSQL's dialect
/// (`Migrations/postgresql/`, `MigrationSet.postgreSQL`), every other target the rest of
/// `Migrations/` (the SQLite files at the top level, `MigrationSet.main`). Paths stay relative
/// to `Migrations/`, so each set still picks its files out by folder.
///
/// The directory is listed here, at build-planning time, rather than in `Package.swift`
/// (whose evaluation is cached): a new migration file is picked up by the next build.
@main
struct EmbedMigrationsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let migrations = context.package.directoryURL.appending(path: "Migrations")
        let sqlFiles = Self.sqlFiles(under: migrations).filter { file in
            let owner = Self.folderOwners.first { folder, _ in
                file.path.hasPrefix(migrations.appending(path: folder).path + "/")
            }?.value
            return owner == nil ? !Self.folderOwners.values.contains(target.name) : owner == target.name
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrationFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(sqlFiles.count) migration file(s) into \(target.name)",
                executable: try context.tool(named: "embed-migrations").url,
                arguments: (Self.traitOfTarget[target.name].map { ["--only-when", $0] } ?? [])
                    + [output.path(percentEncoded: false), migrations.path(percentEncoded: false)]
                    + sqlFiles.map { $0.path(percentEncoded: false) },
                inputFiles: sqlFiles,
                outputFiles: [output]
            )
        ]
    }

    /// The folders of `Migrations/` that belong to one target each, and that target.
    private static let folderOwners = ["processor": "MockProcessor", "postgresql": "PayPanelPostgres"]

    /// Targets whose code exists only with a package trait: their embedded schema is compiled
    /// only with it too, so a build without the trait holds no PostgreSQL schema at all.
    private static let traitOfTarget = ["PayPanelPostgres": "PostgreSQL"]

    private static func sqlFiles(under directory: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(
            at: directory, includingPropertiesForKeys: [.isRegularFileKey]
        ) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == "sql" {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }
}
