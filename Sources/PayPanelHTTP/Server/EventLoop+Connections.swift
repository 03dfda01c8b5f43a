import CPayPanelHTTP
import Foundation
import Glibc

/// Accepting, reading, writing and closing: the system calls the connection state machine's
/// actions turn into.
extension EventLoop {
    /// Accepts waiting connections, a bounded number per wake-up so a connection flood does
    /// not starve the connections already open.
    func acceptConnections(now: ContinuousClock.Instant) {
        guard let listener, acceptPausedUntil == nil else { return }
        for _ in 0..<64 {
            switch listener.accept() {
            case .connection(let descriptor, let remoteAddress):
                admit(descriptor, remoteAddress: remoteAddress, now: now)
            case .none:
                return
            case .retry:
                continue
            case .outOfDescriptors(let code):
                shedConnection(errno: code, listener: listener, now: now)
                return
            case .failed(let code):
                report(.init(kind: .acceptFailed, reason: "accept failed: \(POSIX.describe(errno: code))", requestID: nil), from: nil)
                return
            }
        }
    }

    private func admit(_ descriptor: Int32, remoteAddress: HTTPRemoteAddress?, now: ContinuousClock.Instant) {
        guard connections.count < configuration.maxConnections else {
            refuseOverLimit(descriptor, remoteAddress: remoteAddress)
            return
        }
        // Responses go out in one write; Nagle's algorithm would only delay the last segment.
        POSIX.setOption(descriptor, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        let id = nextConnectionID
        nextConnectionID += 1
        guard epoll.add(descriptor, interest: Epoll.readable, key: id) else {
            POSIX.close(descriptor)
            return
        }
        let machine = ConnectionStateMachine(configuration: configuration, remoteAddress: remoteAddress, now: now)
        let connection = Connection(id: id, descriptor: descriptor, remoteAddress: remoteAddress, machine: machine, interest: Epoll.readable)
        connections[id] = connection
        statistics.openConnections.store(connections.count, ordering: .relaxed)
        synchronize(connection)
    }

    /// Answers 503 without reading the request: one non-blocking send of a response that fits
    /// any socket buffer, a half-close, a discard of whatever already arrived (so the close
    /// does not become a reset that destroys the 503), then close. No lingering: that would
    /// let a flood hold descriptors beyond the limit.
    private func refuseOverLimit(_ descriptor: Int32, remoteAddress: HTTPRemoteAddress?) {
        _ = overLimitResponse.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, POSIX.noSignal) }
        _ = shutdown(descriptor, Int32(SHUT_WR))
        while recv(descriptor, readBuffer.baseAddress, readBuffer.count, 0) > 0 {}
        POSIX.close(descriptor)
        let reason = "the server already has \(configuration.maxConnections) open connections; answered 503"
        report(.init(kind: .connectionRefused, reason: reason, requestID: nil), from: remoteAddress)
    }

    /// Out of descriptors: close the reserve, accept the waiting connection and close it
    /// unanswered, reopen the reserve. Without a reserve, pause accepting briefly instead of
    /// spinning on a listener that stays ready.
    private func shedConnection(errno code: Int32, listener: ListeningSocket, now: ContinuousClock.Instant) {
        let reason = "could not accept a connection (\(POSIX.describe(errno: code))); it was closed unanswered. Raise the descriptor limit or lower maxConnections"
        report(.init(kind: .acceptFailed, reason: reason, requestID: nil), from: nil)
        guard reserveDescriptor >= 0 else {
            acceptPausedUntil = now + .milliseconds(100)
            epoll.modify(listener.descriptor, interest: 0, key: EventLoop.listenerKey)
            return
        }
        POSIX.close(reserveDescriptor)
        if case .connection(let descriptor, _) = listener.accept() { POSIX.close(descriptor) }
        reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    func resumeAcceptingIfDue(now: ContinuousClock.Instant) {
        guard let until = acceptPausedUntil, now >= until else { return }
        acceptPausedUntil = nil
        if reserveDescriptor < 0 { reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC) }
        if let listener { epoll.modify(listener.descriptor, interest: Epoll.readable, key: EventLoop.listenerKey) }
    }

    func handleReadiness(_ events: UInt32, on connection: Connection, now: ContinuousClock.Instant) {
        let failed = events & (Epoll.error | Epoll.hangUp) != 0
        if connection.machine.wantsInput && (events & Epoll.readable != 0 || failed) {
            read(from: connection, now: now)
        } else if failed && !connection.hasPendingOutput {
            // The peer is gone while its request is handled: stop the handler, free the slot.
            closeConnection(connection)
            return
        }
        guard connections[connection.id] != nil, connection.hasPendingOutput, events & Epoll.writable != 0 || failed else { return }
        guard flush(connection) else { return }
        if connection.hasPendingOutput {
            synchronize(connection)
        } else {
            perform(connection.machine.outputFlushed(now: now), on: connection, now: now)
        }
    }

    /// One read per wake-up: level-triggered epoll reports the socket again if more is waiting,
    /// and other connections get their turn in between.
    private func read(from connection: Connection, now: ContinuousClock.Instant) {
        let count = recv(connection.descriptor, readBuffer.baseAddress, readBuffer.count, 0)
        if count > 0 {
            let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
            perform(connection.machine.received(bytes, now: now), on: connection, now: now)
        } else if count == 0 {
            perform(connection.machine.inputEnded(now: now), on: connection, now: now)
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            closeConnection(connection)
        }
    }

    /// Carries out the machine's actions until one needs an outside event to follow it.
    func perform(_ first: ConnectionStateMachine.Action, on connection: Connection, now: ContinuousClock.Instant) {
        var action = first
        while true {
            switch action {
            case .readMore:
                synchronize(connection)
                return
            case .admit(let head):
                startAdmission(head, on: connection, now: now)
                return
            case .dispatch(let request):
                startHandler(request, on: connection)
                synchronize(connection)
                return
            case .sendInterim(let bytes):
                connection.queue(bytes)
                guard flush(connection) else { return }
                action = connection.machine.resume(now: now)
            case .send(let bytes, let record):
                // The request is answered: whatever body it held is no longer buffered.
                releaseBodyReservation(of: connection)
                connection.queue(bytes)
                log(record, from: connection.remoteAddress)
                guard flush(connection) else { return }
                guard !connection.hasPendingOutput else {
                    synchronize(connection)
                    return
                }
                action = connection.machine.outputFlushed(now: now)
            case .shutdownWrite:
                // The response is out; FIN tells the client no more is coming.
                _ = shutdown(connection.descriptor, Int32(SHUT_WR))
                synchronize(connection)
                return
            case .close(let notice):
                if let notice { report(notice, from: connection.remoteAddress) }
                closeConnection(connection)
                return
            }
        }
    }

    /// Sends as much queued output as the socket takes. False when the connection failed and
    /// was closed. MSG_NOSIGNAL: a peer that went away must not raise SIGPIPE and kill the process.
    private func flush(_ connection: Connection) -> Bool {
        while connection.hasPendingOutput {
            let sent = connection.withUnsentBytes { send(connection.descriptor, $0.baseAddress, $0.count, POSIX.noSignal) }
            if sent > 0 {
                connection.sent(sent)
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return true
            } else {
                closeConnection(connection)
                return false
            }
        }
        return true
    }

    func closeConnection(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        connection.handlerTask?.cancel()
        releaseBodyReservation(of: connection)
        // Closing the only descriptor for the socket also removes it from the epoll set.
        POSIX.close(connection.descriptor)
        statistics.openConnections.store(connections.count, ordering: .relaxed)
    }

    private func log(_ record: ConnectionStateMachine.ExchangeRecord, from address: HTTPRemoteAddress?) {
        let time = Date()
        configuration.accessLog?(HTTPAccessLogEntry(
            time: time, requestID: record.requestID, method: record.method, path: record.path,
            status: record.status, duration: record.duration))
        if let notice = record.notice { report(notice, from: address, time: time) }
    }
}
