import Foundation
import PayPanel
import Synchronization
import TestSupport

/// Helpers shared by the notification tests.
enum NotificationFixtures {
    /// The payload of `fixtures/notifications/<name>`, read and required to be deliverable.
    static func payload(_ name: String) throws -> PushPayload {
        let result = PushPayloadReader.read(data: Array(try RepositoryPaths.contents(ofFixture: "notifications/\(name)").utf8))
        guard let payload = result.deliverablePayload else { throw FixtureError(description: "\(name): \(result.report.errors)") }
        return payload
    }

    static func read(_ name: String) throws -> PushPayloadReader.Result {
        PushPayloadReader.read(data: Array(try RepositoryPaths.contents(ofFixture: "notifications/\(name)").utf8))
    }

    /// A payload with `mutable-content: 1`, an alert, and `media` as the Getui string.
    static func mediaPayload(_ media: String?, mutable: Bool = true) -> PushPayload {
        var document: JSONValue = [
            "aps": ["alert": ["title": "Offer", "subtitle": "Original", "body": "Body text"], "mutable-content": mutable ? 1 : 0],
        ]
        if let media, case .object(var object) = document {
            object["payload"] = .string(media)
            document = .object(object)
        }
        return PushPayloadReader.read(json: document).payload!
    }

    static let attachmentsDirectory = RepositoryPaths.fixture("attachments")
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}

/// A fetcher that returns canned bytes per location and records what it was asked for.
final class ScriptedFetcher: MediaFetcher {
    enum Reply: Sendable {
        case bytes([UInt8])
        case failure(MediaFetchError)
        /// Returns the bytes after moving the clock on by `seconds` (a fetch that overran).
        case slow([UInt8], seconds: Int64, clock: ManualMonotonicClock)
    }

    private let replies: [String: Reply]
    private let asked = Mutex<[String]>([])

    init(_ replies: [String: Reply]) {
        self.replies = replies
    }

    var requestedLocations: [String] { asked.withLock { $0 } }

    func fetch(_ location: MediaLocation, maximumBytes: Int, timeout: Duration) throws(MediaFetchError) -> FetchedMedia {
        asked.withLock { $0.append(location.description) }
        switch replies[location.description] {
        case .bytes(let bytes)?:
            guard bytes.count <= maximumBytes else { throw MediaFetchError(.tooLarge, "too large") }
            return FetchedMedia(bytes: bytes)
        case .failure(let error)?:
            throw error
        case .slow(let bytes, let seconds, let clock)?:
            clock.advance(.seconds(seconds))
            return FetchedMedia(bytes: bytes)
        case nil:
            throw MediaFetchError(.unreachable, "no such test location \(location)")
        }
    }
}

/// A monotonic clock tests move by hand.
final class ManualMonotonicClock: MonotonicClock {
    private let now = Mutex<Duration>(.zero)
    func elapsed() -> Duration { now.withLock { $0 } }
    func advance(_ duration: Duration) { now.withLock { $0 += duration } }
}

/// Minimal valid file heads for each type.
enum MagicBytes {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16]
    static let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0]
    static let mp4: [UInt8] = [0, 0, 0, 20] + Array("ftypisom".utf8) + [0, 0, 2, 0]
    static let mpeg: [UInt8] = [0x00, 0x00, 0x01, 0xBA, 0x44]
    static let avi: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI LIST".utf8)
    static let wav: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8)
    static let aiff: [UInt8] = Array("FORM".utf8) + [0, 0, 0, 0] + Array("AIFFCOMM".utf8)
    static let mp3: [UInt8] = Array("ID3".utf8) + [4, 0, 0]
    static let m4a: [UInt8] = [0, 0, 0, 20] + Array("ftypM4A ".utf8) + [0, 0, 0, 0]
}
