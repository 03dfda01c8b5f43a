import Synchronization

/// Collects what callbacks report, from any thread.
public final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    public init() {}

    public func record(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    public var all: [Value] { values.withLock { $0 } }
}
