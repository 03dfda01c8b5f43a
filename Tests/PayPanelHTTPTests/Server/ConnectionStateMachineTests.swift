@testable import PayPanelHTTP
import Testing

/// The connection state machine without sockets or clocks: feed an event with a made-up
/// instant, expect the action (postgres-nio style).
@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    let start = ContinuousClock.now

    private func configuration() -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration()
        configuration.headTimeout = .seconds(10)
        configuration.bodyTimeout = .seconds(30)
        configuration.idleTimeout = .seconds(30)
        configuration.makeRequestID = { "id" }
        return configuration
    }

    private func at(_ seconds: Double) -> ContinuousClock.Instant {
        start + .milliseconds(Int(seconds * 1000))
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    private func dispatched(_ action: Machine.Action) -> HTTPRequest? {
        if case .dispatch(let request) = action { request } else { nil }
    }

    private func sent(_ action: Machine.Action) -> (text: String, record: Machine.ExchangeRecord)? {
        if case .send(let bytes, let record) = action { (String(decoding: bytes, as: UTF8.self), record) } else { nil }
    }

    @Test func aRequestIsDispatchedAnsweredAndTheConnectionGoesIdle() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        #expect(machine.deadline == at(30))
        let request = try #require(dispatched(machine.received(bytes("GET /a HTTP/1.1\r\nHost: a\r\n\r\n"), now: at(1))))
        #expect(request.target.path == "/a")
        #expect(machine.state == .handling)
        #expect(machine.deadline == nil)
        #expect(!machine.wantsInput)
        let (text, record) = try #require(sent(machine.responseReady(.text("ok"), now: at(1.5))))
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(!text.contains("Connection:"))
        #expect(record.status == .ok)
        #expect(record.duration == .milliseconds(500))
        #expect(machine.outputFlushed(now: at(2)) == .readMore)
        #expect(machine.state == .idle)
        #expect(machine.deadline == at(32))
    }

    @Test func theHeadDeadlineIsFixedAtTheFirstByte() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        #expect(machine.received(bytes("G"), now: at(1)) == .readMore)
        #expect(machine.deadline == at(11))
        // More bytes, however many, do not move it.
        #expect(machine.received(bytes("ET / HTTP/1.1\r\n"), now: at(9)) == .readMore)
        #expect(machine.deadline == at(11))
        #expect(machine.deadlinePassed(now: at(10.9)) == .readMore)
        let (text, record) = try #require(sent(machine.deadlinePassed(now: at(11))))
        #expect(text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(text.contains("Connection: close\r\n"))
        #expect(record.notice?.kind == .requestRefused(.requestTimeout))
        #expect(record.method == .get)
        #expect(machine.outputFlushed(now: at(11.1)) == .shutdownWrite)
        #expect(machine.state == .lingering)
        #expect(machine.inputEnded(now: at(11.2)) == .close(nil))
    }

    @Test func pipelinedRequestsWaitForTheResponseBeforeThem() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        let first = try #require(dispatched(machine.received(bytes("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n"), now: at(1))))
        #expect(first.target.path == "/1")
        // More pipelined bytes are only buffered while the first is handled.
        #expect(machine.received(bytes("GET /3 HTTP/1.1\r\nHost: a\r\n\r\n"), now: at(1)) == .readMore)
        _ = machine.responseReady(.text("1"), now: at(2))
        let second = try #require(dispatched(machine.outputFlushed(now: at(2))))
        #expect(second.target.path == "/2")
        _ = machine.responseReady(.text("2"), now: at(3))
        #expect(dispatched(machine.outputFlushed(now: at(3)))?.target.path == "/3")
    }

    private func admitting(_ action: Machine.Action) -> HTTPRequest? {
        if case .admit(let head) = action { head } else { nil }
    }

    @Test func aRequestWithABodyIsAdmittedFromItsHeadBeforeTheBodyIsRead() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        let head = try #require(admitting(machine.received(bytes("POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab"), now: at(1))))
        #expect(head.target.path == "/a" && head.body.isEmpty)
        #expect(machine.state == .admitting)
        #expect(!machine.wantsInput, "nothing is read while the head is checked")
        #expect(machine.deadline == nil)
        #expect(machine.announcedBodyBytes == 5)
        // Bytes already received wait in the parser; the rest come once admitted.
        #expect(machine.received(bytes("c"), now: at(1.5)) == .readMore)
        #expect(machine.admitted(now: at(2)) == .readMore)
        #expect(machine.state == .body && machine.deadline == at(32))
        #expect(dispatched(machine.received(bytes("de"), now: at(3)))?.body == bytes("abcde"))
    }

    @Test func aRequestRefusedAtItsHeadIsAnsweredAndClosedWithItsBodyUnread() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = try #require(admitting(machine.received(bytes("POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nsecret"), now: at(1))))
        let (text, record) = try #require(sent(machine.refusedAtHead(.text("no key", status: .unauthorized), now: at(2))))
        #expect(text.hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
        #expect(text.contains("Connection: close\r\n"))
        #expect(record.status == .unauthorized && record.notice == nil)
        // The unread body is discarded by the lingering close, never parsed as a request.
        #expect(machine.outputFlushed(now: at(2)) == .shutdownWrite)
        #expect(machine.state == .lingering)
    }

    @Test func aRequestOverTheBodyBudgetGets503WithRetryAfter() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = try #require(admitting(machine.received(bytes("POST /a HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"), now: at(1))))
        #expect(machine.announcedBodyBytes == 1024 * 1024, "a chunked body may grow to the body limit")
        let (text, record) = try #require(sent(machine.bodyBudgetExhausted(budget: 64 * 1024 * 1024, now: at(2))))
        #expect(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(text.contains("Retry-After: 1\r\n") && text.contains("Connection: close\r\n") && text.contains("64 MiB"))
        #expect(record.notice?.kind == .requestRefused(.serviceUnavailable))
    }

    @Test func expectContinueIsAnsweredOnlyOnceTheRequestIsAdmitted() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        let action = machine.received(bytes("PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"), now: at(1))
        #expect(admitting(action) != nil, "no 100 Continue before the credential is checked")
        #expect(machine.admitted(now: at(1)) == .sendInterim(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)))
        #expect(machine.resume(now: at(1)) == .readMore)
        #expect(machine.deadline == at(31))
        #expect(dispatched(machine.received(bytes("hi"), now: at(2)))?.body == bytes("hi"))

        var refused = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = refused.received(bytes("PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"), now: at(1))
        let text = try #require(sent(refused.refusedAtHead(.text("no", status: .unauthorized), now: at(1)))?.text)
        #expect(!text.contains("100 Continue") && text.hasPrefix("HTTP/1.1 401"))
    }

    @Test func aMalformedRequestIsRefusedAndClosed() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        let (text, record) = try #require(sent(machine.received(bytes("GET / HTTP/1.1\r\nHost : a\r\n\r\n"), now: at(1))))
        #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(text.contains("before the colon"))
        #expect(record.notice?.reason.contains("before the colon") == true)
        #expect(machine.state == .writing(closeAfter: true))
    }

    @Test func clientConnectionCloseAndHTTP10CloseAfterTheResponse() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = machine.received(bytes("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"), now: at(1))
        #expect(sent(machine.responseReady(.text("x"), now: at(1)))?.text.contains("Connection: close\r\n") == true)
        #expect(machine.outputFlushed(now: at(1)) == .shutdownWrite)

        var old = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = old.received(bytes("GET / HTTP/1.0\r\n\r\n"), now: at(1))
        #expect(sent(old.responseReady(.text("x"), now: at(1)))?.text.contains("Connection: close\r\n") == true)
    }

    @Test func aHandlerCanAskToClose() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = machine.received(bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), now: at(1))
        _ = machine.responseReady(HTTPResponse(status: .ok, headers: ["Connection": "close"]), now: at(1))
        #expect(machine.state == .writing(closeAfter: true))
    }

    @Test func shutdownClosesIdleConnectionsAndLetsBusyOnesFinish() throws {
        var idle = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        #expect(idle.shutdownRequested(now: at(1)) == .close(nil))

        var busy = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = busy.received(bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), now: at(1))
        #expect(busy.shutdownRequested(now: at(2)) == .readMore)
        #expect(sent(busy.responseReady(.text("done"), now: at(3)))?.text.contains("Connection: close\r\n") == true)
        #expect(busy.outputFlushed(now: at(3)) == .shutdownWrite)
    }

    @Test func aHalfClosedClientStillGetsItsResponse() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = machine.received(bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), now: at(1))
        #expect(machine.inputEnded(now: at(1)) == .readMore)
        #expect(sent(machine.responseReady(.text("x"), now: at(2)))?.text.contains("Connection: close\r\n") == true)
    }

    @Test func aClientThatLeavesMidRequestIsClosedWithoutAnAnswer() {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = machine.received(bytes("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab"), now: at(1))
        #expect(machine.state == .admitting)
        #expect(machine.inputEnded(now: at(2)) == .close(nil))

        var reading = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = reading.received(bytes("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab"), now: at(1))
        _ = reading.admitted(now: at(1))
        #expect(reading.state == .body)
        #expect(reading.inputEnded(now: at(2)) == .close(nil))
    }

    @Test func aClientThatNeverReadsIsClosedAtTheWriteDeadline() {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = machine.received(bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), now: at(1))
        _ = machine.responseReady(.text("x"), now: at(2))
        guard case .close(let notice) = machine.deadlinePassed(now: at(32)) else {
            Issue.record("expected close")
            return
        }
        #expect(notice?.kind == .writeTimedOut)
    }

    @Test func aStaleResponseIsIgnored() {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        #expect(machine.responseReady(.text("x"), now: at(1)) == .readMore)
        #expect(machine.state == .idle)
    }

    @Test func aHeadResponseKeepsItsLengthButNotItsBody() throws {
        var machine = Machine(configuration: configuration(), remoteAddress: nil, now: at(0))
        _ = machine.received(bytes("HEAD / HTTP/1.1\r\nHost: a\r\n\r\n"), now: at(1))
        let (text, _) = try #require(sent(machine.responseReady(.text("hello"), now: at(1))))
        #expect(text.contains("Content-Length: 5\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }
}
