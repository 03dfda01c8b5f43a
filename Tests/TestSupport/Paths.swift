import Foundation

/// Where the repository's folders are, found from this source file (works from any directory).
public enum RepositoryPaths {
    /// The package root: two levels above `Tests/TestSupport/`.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func fixture(_ relativePath: String) -> String {
        root.appending(path: "fixtures").appending(path: relativePath).path(percentEncoded: false)
    }

    /// `../shared` beside the checkout, when this machine has it (test data that must not be
    /// copied into the repository). Tests that need it skip cleanly when it is absent.
    public static func shared(_ relativePath: String) -> String? {
        let url = root.deletingLastPathComponent().appending(path: "shared").appending(path: relativePath)
        let path = url.path(percentEncoded: false)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    public static func contents(ofFixture relativePath: String) throws -> String {
        try String(contentsOfFile: fixture(relativePath), encoding: .utf8)
    }
}
