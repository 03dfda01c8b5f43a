import Foundation
import PackagePlugin

/// Build-tool plugin: turns the target's `Web/` files (the demo page's HTML, CSS and
/// JavaScript) into a generated Swift source of the target, so `serve` carries its pages
/// wherever the binary is copied and needs no file lookup at run time.
///
/// The folder is listed here, at build-planning time (like EmbedMigrationsPlugin does), so a
/// new file is picked up by the next build; `Package.swift` excludes `Web/` from the target's
/// sources so SwiftPM does not warn about unhandled files.
@main
struct EmbedWebAssetsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        // `Sources/<target>/Web`: the target's own folder (Target.directoryURL needs tools 6.1,
        // and this package declares 6.0).
        let web = context.package.directoryURL.appending(path: "Sources").appending(path: target.name).appending(path: "Web")
        let files = Self.files(in: web)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedWebAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) web file(s) into \(target.name)",
                executable: try context.tool(named: "embed-web-assets").url,
                arguments: [output.path(percentEncoded: false)] + files.map { $0.path(percentEncoded: false) },
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }

    /// The regular files directly in `directory` (no subfolders: the pages are flat), sorted.
    private static func files(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false))) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appending(path: $0) }
    }
}
