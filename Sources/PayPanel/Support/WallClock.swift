import Foundation
import Synchronization

/// Where "now" comes from. Injected everywhere so tests and `--now` control time; nothing in the
/// library reads the system clock directly.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The real clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that tests move by hand; `--now` uses it too (fixed at the given time).
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    public init(_ start: Date) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
