import Foundation
import PayPanel

/// How the mock processor waits: latency, slow answers, and a caller's timeout running out.
/// Injected so tests run in virtual time while the CLI really sleeps.
public protocol Sleeper: Sendable {
    /// Waits `duration`. Returns early (without throwing) when the task is cancelled.
    func sleep(for duration: Duration) async
}

/// Really waits, on the continuous clock: what the CLI uses.
public struct TaskSleeper: Sleeper {
    /// The real-time sleeper.
    public init() {}

    public func sleep(for duration: Duration) async {
        guard duration > .zero else { return }
        // Cancellation ends the wait early; the processor then reports no answer.
        try? await Task.sleep(for: duration)
    }
}

/// Virtual time: "waiting" moves a `ManualClock` forward at once, so a test of a 25 s deadline
/// takes microseconds and reads the elapsed time from the clock. Share the clock with the
/// processor (and the code under test) so every timestamp moves together. Concurrent waits add
/// up rather than overlap: fine for the sequential scenarios these tests drive.
public struct ManualClockSleeper: Sleeper {
    public let clock: ManualClock

    /// Moves `clock` forward for every wait.
    public init(clock: ManualClock) {
        self.clock = clock
    }

    public func sleep(for duration: Duration) async {
        guard duration > .zero else { return }
        clock.advance(by: duration.timeInterval)
    }
}
