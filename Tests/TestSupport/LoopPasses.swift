import Foundation

/// Waiting for a background loop's finished passes, as its process reports them (`WorkerPasses`:
/// `serve`'s /healthz `worker_passes`, `processor serve`'s /_mock/webhook_deliveries
/// `sender_passes`). A test that asserts "nothing more happened" first waits here for passes
/// begun after its point of interest, instead of sleeping and hoping the loop ran.
public enum LoopPasses {
    public struct Timeout: Error, CustomStringConvertible {
        public let description: String
    }

    /// Returns once `finished()` is `count` more than when called; throws after `seconds` (60 by
    /// default: a loaded 2-core machine running the whole suite). To know a whole pass ran after
    /// something, wait for 2: the first may be the pass that was already running.
    public static func waitFor(
        _ count: Int, of loop: String, within seconds: TimeInterval = 60, finished: () async throws -> Int
    ) async throws {
        let target = try await finished() + count
        let deadline = Date().addingTimeInterval(seconds)
        while try await finished() < target {
            guard Date() < deadline else { throw Timeout(description: "\(loop) did not finish \(count) passes within \(Int(seconds)) s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
