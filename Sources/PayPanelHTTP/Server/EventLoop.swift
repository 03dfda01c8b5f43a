import CPayPanelHTTP
import Foundation
import Glibc

/// The server's one event-loop thread (why one thread: see `HTTPServer`). It owns the
/// listener, every connection and the deadline heap; each wake-up handles ready sockets,
/// posted messages (responses, shutdown) and passed deadlines, in that order.
///
/// `@unchecked Sendable` invariant: the loop is built on the starting thread and handed to
/// its own thread before `run()`; from then on only that thread touches its mutable state.
/// What other threads share with it — `inbox`, `statistics`, `stopped` — is `Sendable` itself.
final class EventLoop: @unchecked Sendable {
    static let listenerKey: UInt64 = 0
    static let inboxKey: UInt64 = 1

    let configuration: HTTPServer.Configuration
    private let responder: HTTPServer.Responder
    /// Where handlers run: threads of the server's own, never blocked by the rest of the process.
    let handlerExecutor: HandlerExecutor
    let inbox: LoopInbox
    let statistics: LoopStatistics
    private let stopped: StopSignal
    let epoll: Epoll
    var listener: ListeningSocket?
    var connections: [UInt64: Connection] = [:]
    private var deadlines = DeadlineHeap()
    var nextConnectionID: UInt64 = 2
    /// Set when shutdown begins: the loop stops when the last connection closes or at this instant.
    private var graceDeadline: ContinuousClock.Instant?
    /// While out of descriptors with no reserve left, accepting pauses until this instant.
    var acceptPausedUntil: ContinuousClock.Instant?
    /// Kept open to be closed when the process runs out of descriptors, so the loop can still
    /// accept and close the waiting connection instead of spinning on a ready listener.
    var reserveDescriptor: Int32
    /// One read buffer for every connection: an idle connection owns no buffer at all.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The 503 for connections beyond the limit, encoded once.
    let overLimitResponse: [UInt8]
    /// Body bytes the admitted requests may hold right now, all connections together
    /// (`Configuration.maxBufferedBodyBytes`): reserved at admission, released when the
    /// request is answered or its connection closes.
    var bufferedBodyBytes = 0

    init(
        configuration: HTTPServer.Configuration, responder: HTTPServer.Responder, listener: ListeningSocket,
        inbox: LoopInbox, statistics: LoopStatistics, stopped: StopSignal
    ) throws(HTTPServerError) {
        self.configuration = configuration
        self.responder = responder
        self.listener = listener
        self.inbox = inbox
        self.statistics = statistics
        self.stopped = stopped
        // What can fail comes first, while nothing is held that only `finish()` releases: a
        // failed epoll is closed by its own deinit, and the handler threads, the reserve
        // descriptor and the read buffer are acquired only after the last throw.
        let epoll = try Epoll()
        guard epoll.add(listener.descriptor, interest: Epoll.readable, key: EventLoop.listenerKey),
            epoll.add(inbox.descriptor, interest: Epoll.readable, key: EventLoop.inboxKey)
        else {
            throw HTTPServerError("could not register the listener with epoll: \(POSIX.describe(errno: errno))")
        }
        self.epoll = epoll
        handlerExecutor = HandlerExecutor(threadCount: configuration.handlerThreads)
        reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        var refusal = configuration.rejectionResponse(.serviceUnavailable, "the server has too many open connections; retry in a second")
        refusal.status = .serviceUnavailable
        refusal.headers.replaceOrAdd(name: "Retry-After", value: "1")
        overLimitResponse = ResponseEncoder.encode(refusal, connection: .close)
            ?? ResponseEncoder.fallback(.serviceUnavailable, reason: "the server has too many open connections; retry in a second")
    }

    /// Runs until shutdown completes, then releases everything and fires `stopped`.
    func run() {
        while true {
            for (key, events) in epoll.wait(timeoutMilliseconds: waitTimeout()) {
                let now = ContinuousClock.now
                switch key {
                case EventLoop.listenerKey: acceptConnections(now: now)
                case EventLoop.inboxKey: handleMessages(now: now)
                default:
                    if let connection = connections[key] { handleReadiness(events, on: connection, now: now) }
                }
            }
            let now = ContinuousClock.now
            expireDeadlines(now: now)
            resumeAcceptingIfDue(now: now)
            if let graceDeadline, connections.isEmpty || now >= graceDeadline { break }
        }
        finish()
    }

    // MARK: Messages from other threads

    private func handleMessages(now: ContinuousClock.Instant) {
        for message in inbox.drain() {
            switch message {
            case .response(let id, let response):
                guard let connection = connections[id] else { continue }  // closed meanwhile
                connection.handlerTask = nil
                releaseBodyReservation(of: connection)
                perform(connection.machine.responseReady(response, now: now), on: connection, now: now)
            case .admission(let id, let admission):
                guard let connection = connections[id] else { continue }  // closed meanwhile
                connection.handlerTask = nil
                switch admission {
                case .admitted(let respond):
                    connection.admittedResponder = respond
                    perform(admitBody(of: connection, now: now), on: connection, now: now)
                case .refused(let response):
                    perform(connection.machine.refusedAtHead(response, now: now), on: connection, now: now)
                }
            case .shutdown(let grace):
                beginShutdown(grace: grace, now: now)
            }
        }
    }

    private func beginShutdown(grace: Duration, now: ContinuousClock.Instant) {
        guard graceDeadline == nil else { return }
        graceDeadline = now + grace
        // Closing the listener makes the kernel refuse new connections from here on.
        listener?.close()
        listener = nil
        for connection in Array(connections.values) {
            perform(connection.machine.shutdownRequested(now: now), on: connection, now: now)
        }
    }

    /// Asks the admission check about a request whose body is unread; a server without one
    /// admits at once.
    func startAdmission(_ head: HTTPRequest, on connection: Connection, now: ContinuousClock.Instant) {
        guard case .admission(let check) = responder else {
            perform(admitBody(of: connection, now: now), on: connection, now: now)
            return
        }
        let inbox = inbox
        let id = connection.id
        connection.handlerTask = Task(executorPreference: handlerExecutor) {
            inbox.post(.admission(connectionID: id, await check(head)))
        }
        synchronize(connection)
    }

    /// An admitted request's body may be read if the server's budget for buffered bodies has
    /// room for what it announced; otherwise it is answered 503 with its body unread.
    private func admitBody(of connection: Connection, now: ContinuousClock.Instant) -> ConnectionStateMachine.Action {
        let announced = connection.machine.announcedBodyBytes
        guard bufferedBodyBytes + announced <= configuration.maxBufferedBodyBytes else {
            return connection.machine.bodyBudgetExhausted(budget: configuration.maxBufferedBodyBytes, now: now)
        }
        bufferedBodyBytes += announced
        connection.reservedBodyBytes += announced
        return connection.machine.admitted(now: now)
    }

    func releaseBodyReservation(of connection: Connection) {
        bufferedBodyBytes -= connection.reservedBodyBytes
        connection.reservedBodyBytes = 0
    }

    func startHandler(_ request: HTTPRequest, on connection: Connection) {
        let inbox = inbox
        let id = connection.id
        let respond: @Sendable (HTTPRequest) async -> HTTPResponse
        if let admitted = connection.admittedResponder {
            // Admitted at its head: the check already ran.
            respond = admitted
            connection.admittedResponder = nil
        } else {
            switch responder {
            case .handler(let handler):
                respond = handler
            case .admission(let check):
                // No body to protect: check and answer in one task, and keep the connection.
                respond = { request in
                    switch await check(request) {
                    case .admitted(let respond): await respond(request)
                    case .refused(let response): response
                    }
                }
            }
        }
        connection.handlerTask = Task(executorPreference: handlerExecutor) {
            let response = await respond(request)
            inbox.post(.response(connectionID: id, response))
        }
    }

    // MARK: Deadlines

    /// Keeps epoll's interest and the deadline heap in step with the connection's state.
    func synchronize(_ connection: Connection) {
        var interest: UInt32 = 0
        if connection.machine.wantsInput { interest |= Epoll.readable }
        if connection.hasPendingOutput { interest |= Epoll.writable }
        if interest != connection.registeredInterest {
            epoll.modify(connection.descriptor, interest: interest, key: connection.id)
            connection.registeredInterest = interest
        }
        let deadline = connection.machine.deadline
        guard deadline != connection.scheduledDeadline else { return }
        connection.scheduledDeadline = deadline
        connection.timerGeneration &+= 1
        if let deadline {
            deadlines.push(.init(deadline: deadline, connectionID: connection.id, generation: connection.timerGeneration))
        }
    }

    private func expireDeadlines(now: ContinuousClock.Instant) {
        while let entry = deadlines.earliest, entry.deadline <= now {
            _ = deadlines.popEarliest()
            guard let connection = connections[entry.connectionID], connection.timerGeneration == entry.generation else {
                continue  // superseded by a later deadline, or the connection is gone
            }
            connection.scheduledDeadline = nil
            perform(connection.machine.deadlinePassed(now: now), on: connection, now: now)
        }
        // Superseded entries are left in the heap; rebuild it when they outnumber live ones.
        if deadlines.count > 1024 && deadlines.count > 4 * connections.count {
            deadlines.rebuild(from: connections.values.compactMap { connection in
                connection.scheduledDeadline.map {
                    DeadlineHeap.Entry(deadline: $0, connectionID: connection.id, generation: connection.timerGeneration)
                }
            })
        }
    }

    /// Milliseconds until the earliest deadline (rounded up, so the loop never wakes early
    /// and spins), or -1 when nothing is due.
    private func waitTimeout() -> Int32 {
        let candidates = [deadlines.earliest?.deadline, graceDeadline, acceptPausedUntil].compactMap { $0 }
        guard let next = candidates.min() else { return -1 }
        let remaining = ContinuousClock.now.duration(to: next)
        guard remaining > .zero else { return 0 }
        return Int32(clamping: remaining.millisecondsRoundedUp)
    }

    // MARK: Stopping

    private func finish() {
        for connection in Array(connections.values) { closeConnection(connection) }
        listener?.close()
        listener = nil
        inbox.close()
        if reserveDescriptor >= 0 { POSIX.close(reserveDescriptor) }
        readBuffer.deallocate()
        handlerExecutor.stop()
        stopped.fire()
    }

    /// Reports an event to the configured event log.
    func report(_ notice: ConnectionStateMachine.Notice, from address: HTTPRemoteAddress?, time: Date = Date()) {
        configuration.eventLog?(HTTPServerEvent(
            time: time, kind: notice.kind, reason: notice.reason, requestID: notice.requestID, remoteAddress: address))
    }
}
