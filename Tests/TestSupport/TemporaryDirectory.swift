import Foundation

/// A fresh directory under the system temporary directory, removed when the value goes away,
/// so tests run in parallel without sharing files and leave nothing behind.
public final class TemporaryDirectory: @unchecked Sendable {
    // Immutable after init; the directory itself is only touched by the test that owns it.
    public let url: URL

    public init(_ label: String = "paypanel-test") throws {
        url = FileManager.default.temporaryDirectory
            .appending(path: "\(label)-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    public var path: String { url.path(percentEncoded: false) }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String {
        url.appending(path: name).path(percentEncoded: false)
    }

    /// Writes `contents` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ contents: String) throws -> String {
        let path = file(name)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
