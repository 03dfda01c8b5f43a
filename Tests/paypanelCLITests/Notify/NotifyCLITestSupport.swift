import Foundation
import TestSupport

/// Shared by the `notify` CLI tests.
enum NotifyCLI {
    static func fixture(_ name: String) -> String { RepositoryPaths.fixture("notifications/\(name)") }
    static let attachments = RepositoryPaths.fixture("attachments")

    /// stdout parsed as a JSON object (Foundation's parser is fine for reading test output).
    static func object(_ result: CLIResult) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw NotifyCLIError(description: "stdout is not a JSON object: \(result)")
        }
        return object
    }

    /// stdout parsed as a JSON array of objects.
    static func array(_ result: CLIResult) throws -> [[String: Any]] {
        guard let array = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] else {
            throw NotifyCLIError(description: "stdout is not a JSON array: \(result)")
        }
        return array
    }

    /// Writes a payload whose Getui `payload` string holds `media`.
    static func writeMediaPayload(_ media: [String: String], in directory: TemporaryDirectory, name: String = "push.json") throws -> String {
        let inner = String(decoding: try JSONSerialization.data(withJSONObject: media, options: [.sortedKeys]), as: UTF8.self)
        let document: [String: Any] = [
            "aps": ["alert": ["title": "Offer", "body": "Body"], "mutable-content": 1],
            "payload": inner,
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        let path = directory.file(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }
}

struct NotifyCLIError: Error, CustomStringConvertible {
    let description: String
}
