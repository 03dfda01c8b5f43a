/// One accepted connection as the event loop holds it: the descriptor, the state machine,
/// the bytes still to write, and the loop's bookkeeping (epoll interest, scheduled deadline,
/// the running handler). Used only on the loop thread, so it needs no locking and is not
/// `Sendable`.
final class Connection {
    /// Unique for the server's lifetime (descriptor numbers are reused; ids are not).
    let id: UInt64
    let descriptor: Int32
    let remoteAddress: HTTPRemoteAddress?
    var machine: ConnectionStateMachine
    /// Bytes queued for the socket and how many of them were sent.
    private(set) var output: [UInt8] = []
    private(set) var outputSent = 0
    /// What epoll currently watches this descriptor for.
    var registeredInterest: UInt32
    /// The deadline the heap holds for this connection, and the generation that marks it.
    var scheduledDeadline: ContinuousClock.Instant?
    var timerGeneration: UInt64 = 0
    /// The admission check or handler task for the request in flight, cancelled if the
    /// connection closes first.
    var handlerTask: Task<Void, Never>?
    /// What answers the admitted request once its body is read (from its admission check).
    var admittedResponder: (@Sendable (HTTPRequest) async -> HTTPResponse)?
    /// The share of the server's body budget this connection's request holds.
    var reservedBodyBytes = 0
    /// Set once `shutdown(SHUT_WR)` was called.
    var writeSideShut = false

    init(id: UInt64, descriptor: Int32, remoteAddress: HTTPRemoteAddress?, machine: ConnectionStateMachine, interest: UInt32) {
        self.id = id
        self.descriptor = descriptor
        self.remoteAddress = remoteAddress
        self.machine = machine
        registeredInterest = interest
    }

    var hasPendingOutput: Bool { outputSent < output.count }

    func queue(_ bytes: [UInt8]) {
        if output.isEmpty {
            output = bytes
        } else {
            output += bytes
        }
    }

    /// Records that `count` more bytes were sent; releases the buffer once all were.
    func sent(_ count: Int) {
        outputSent += count
        if outputSent == output.count {
            output = []
            outputSent = 0
        }
    }

    /// Runs `body` on the unsent bytes (non-empty when `hasPendingOutput`).
    func withUnsentBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        output.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[outputSent...])) }
    }
}
