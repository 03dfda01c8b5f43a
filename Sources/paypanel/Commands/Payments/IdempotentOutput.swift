import Foundation
import PayPanel

/// How payments commands take an idempotency key and print an idempotent result, fresh or
/// replayed, so that a retry with the same key prints exactly what the first run printed.
enum IdempotentOutput {
    static let keyOption = OptionSpec.value(
        "--idempotency-key", "key",
        help: "Run at most once per key: a retry with the same key prints the first result (failures included). Keys expire after 24 h.")

    /// Notes a replay on standard error, so a retry's output says it is the first run's.
    static func noteReplay(key: String?, replayed: Bool, firstUsedAt: Date?, console: Console) {
        guard replayed, let key else { return }
        let first = firstUsedAt.map { ", first used at \(Timestamp.format($0))" } ?? ""
        console.printError("note: replayed the result of idempotency key \(JSONWriter.quoted(key))\(first)")
    }
}
