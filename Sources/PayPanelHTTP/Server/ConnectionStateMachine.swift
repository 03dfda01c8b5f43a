/// The life of one connection as a pure state machine (in the style of postgres-nio): one
/// `mutating func` per event — bytes, end of input, a handler's response, output flushed, a
/// deadline, shutdown — each returning the one `Action` its owner must perform. It does no
/// I/O and reads no clock; `now` is passed in, so tests drive it with made-up instants.
///
/// One request at a time: after a request is dispatched nothing more is parsed (and its
/// owner stops reading the socket) until its response has been written, so pipelined
/// requests are answered in order and a client cannot queue unbounded work.
///
/// A request that announces a body is admitted before any of its body is read: the machine
/// stops at the end of the head (`admit`) until its owner says whether the request may go on
/// (the route's credential, the server's budget for buffered bodies). A refused request is
/// answered and the connection closed with its body unread.
struct ConnectionStateMachine {
    enum State: Equatable {
        /// Between requests (or before the first): nothing buffered, idle deadline.
        case idle
        /// A request has started; head deadline, fixed at its first byte.
        case head
        /// The head of a request with a body is complete and waits for `admitted` or a
        /// refusal; nothing is read meanwhile, and no deadline runs (shutdown bounds it).
        case admitting
        /// The request was admitted; body deadline.
        case body
        /// The request is with the handler; no deadline (the shutdown grace bounds it).
        case handling
        /// A response is being written; write deadline.
        case writing(closeAfter: Bool)
        /// The last response was written and the write side shut; input is discarded until
        /// the client closes or the linger deadline.
        case lingering
        case closed
    }

    /// What the owner does next. After `sendInterim` it calls `resume`; after `send`, once
    /// the bytes are flushed, `outputFlushed`.
    enum Action: Equatable {
        /// Nothing until more bytes, a response, or the deadline.
        case readMore
        /// Decide from this head (the body is empty and unread) whether the request may go
        /// on, then call `admitted` or `refusedAtHead` (or `bodyBudgetExhausted`).
        case admit(HTTPRequest)
        /// Run the handler for this request, then call `responseReady`.
        case dispatch(HTTPRequest)
        /// Write `100 Continue`, then call `resume`.
        case sendInterim([UInt8])
        /// Write a final response; the record is for the access log (and event log when the
        /// server refused the request).
        case send([UInt8], ExchangeRecord)
        /// Everything is written: shut the write side and keep reading to discard.
        case shutdownWrite
        /// Close the descriptor; report the notice if there is one.
        case close(Notice?)
    }

    /// A finished exchange, for the access log.
    struct ExchangeRecord: Equatable {
        let requestID: String
        let method: HTTPMethod?
        let path: String?
        let status: HTTPStatus
        let duration: Duration
        /// Set when this response is an event worth reporting: a refusal or an invalid response.
        let notice: Notice?
    }

    /// An event-log entry without its time and address, which the owner adds.
    struct Notice: Equatable {
        let kind: HTTPServerEvent.Kind
        let reason: String
        let requestID: String?
    }

    /// The request being read or handled.
    private struct Exchange {
        let requestID: String
        let started: ContinuousClock.Instant
        var head: HTTPRequestHead?
    }

    private(set) var state: State = .idle
    /// When `deadlinePassed` must be called; nil while a handler runs.
    private(set) var deadline: ContinuousClock.Instant?
    private let configuration: HTTPServer.Configuration
    private let remoteAddress: HTTPRemoteAddress?
    private var parser: HTTPRequestParser
    private var exchange: Exchange?
    private var body: [UInt8] = []
    /// Shutdown started or the client ended its input: close after the current response.
    private var closeAfterResponse = false
    private var lingerBytesLeft = 0

    /// A freshly accepted connection, idle until its first byte.
    init(configuration: HTTPServer.Configuration, remoteAddress: HTTPRemoteAddress?, now: ContinuousClock.Instant) {
        self.configuration = configuration
        self.remoteAddress = remoteAddress
        parser = HTTPRequestParser(limits: configuration.limits)
        deadline = now + configuration.idleTimeout
    }

    /// Whether the owner should read the socket: not while a request is handled or answered.
    var wantsInput: Bool {
        switch state {
        case .idle, .head, .body, .lingering: true
        case .admitting, .handling, .writing, .closed: false
        }
    }

    /// Bytes arrived.
    mutating func received(_ bytes: some Collection<UInt8>, now: ContinuousClock.Instant) -> Action {
        switch state {
        case .lingering:
            lingerBytesLeft -= bytes.count
            return lingerBytesLeft > 0 ? .readMore : close(nil)
        case .closed:
            return .readMore
        case .idle:
            parser.append(bytes)
            startRequest(now: now)
            return parse(now: now)
        case .head, .body:
            parser.append(bytes)
            return parse(now: now)
        case .admitting, .handling, .writing:
            // Bytes that arrived with the head, or pipelined ones: parsed in their turn.
            parser.append(bytes)
            return .readMore
        }
    }

    /// How many body bytes the request being admitted may make the server buffer: its
    /// `Content-Length`, or the body limit for a chunked body (its length is not known yet).
    var announcedBodyBytes: Int {
        switch exchange?.head?.framing {
        case .contentLength(let length): length
        case .chunked: configuration.limits.maxBodyBytes
        case .some(.none), nil: 0
        }
    }

    /// The request waiting in `admitting` may go on: answer `Expect: 100-continue`, read the body.
    mutating func admitted(now: ContinuousClock.Instant) -> Action {
        guard state == .admitting, let head = exchange?.head else { return .readMore }
        state = .body
        deadline = now + configuration.bodyTimeout
        if head.expectsContinue && parser.bufferedByteCount == 0 {
            return .sendInterim(ResponseEncoder.continueResponse)
        }
        return parse(now: now)
    }

    /// The request waiting in `admitting` is refused with `response` (a 401, a 404…): it is
    /// sent with `Connection: close` and the body is never read.
    mutating func refusedAtHead(_ response: HTTPResponse, now: ContinuousClock.Instant) -> Action {
        guard state == .admitting else { return .readMore }
        discardInput()
        let bytes = ResponseEncoder.encode(response, connection: .close)
            ?? encodeRefusal(.internalServerError, "the server produced an invalid response", connection: .close)
        return send(bytes, status: response.status, closing: true, notice: nil, now: now)
    }

    /// The request waiting in `admitting` would take the server's buffered bodies over their
    /// budget: 503 with `Retry-After`, body unread.
    mutating func bodyBudgetExhausted(budget: Int, now: ContinuousClock.Instant) -> Action {
        guard state == .admitting else { return .readMore }
        let reason = "the server is already holding \(budget / (1024 * 1024)) MiB of request bodies; retry in a second"
        return refuse(HTTPParseError(.serviceUnavailable, reason), headers: ["Retry-After": "1"], now: now)
    }

    /// Continue parsing after `sendInterim`.
    mutating func resume(now: ContinuousClock.Instant) -> Action {
        state == .head || state == .body ? parse(now: now) : .readMore
    }

    /// The client ended its side of the connection.
    mutating func inputEnded(now: ContinuousClock.Instant) -> Action {
        switch state {
        case .idle, .head, .admitting, .body, .lingering, .closed:
            // Mid-request there is nobody left to answer.
            return close(nil)
        case .handling, .writing:
            // A half-closed client may still read its response.
            closeAfterResponse = true
            return .readMore
        }
    }

    /// The handler answered the dispatched request.
    mutating func responseReady(_ response: HTTPResponse, now: ContinuousClock.Instant) -> Action {
        guard state == .handling, let exchange, let head = exchange.head else { return .readMore }
        if response.dropsConnection { return close(nil) }
        let closing = closeAfterResponse || !head.keepAlive
            || response.headers.lowercasedListElements(for: "connection").contains("close")
        let connection: ResponseEncoder.ConnectionHeader = closing ? .close : (head.version == .http1_0 ? .keepAlive : .omitted)
        if let bytes = ResponseEncoder.encode(response, connection: connection, isHead: head.method == .head) {
            return send(bytes, status: response.status, closing: closing, notice: nil, now: now)
        }
        let reason = "the handler's response has a status or header that cannot be written"
        let notice = Notice(kind: .invalidResponse, reason: reason, requestID: exchange.requestID)
        let bytes = encodeRefusal(.internalServerError, "the server produced an invalid response", connection: connection)
        return send(bytes, status: .internalServerError, closing: closing, notice: notice, now: now)
    }

    /// Everything queued has been written to the socket.
    mutating func outputFlushed(now: ContinuousClock.Instant) -> Action {
        guard case .writing(let closeAfter) = state else { return .readMore }
        exchange = nil
        if closeAfter || closeAfterResponse {
            state = .lingering
            deadline = now + configuration.lingerTimeout
            // Enough for a client that sent its whole over-limit body before reading.
            lingerBytesLeft = 8 * 1024 * 1024
            return .shutdownWrite
        }
        if parser.bufferedByteCount > 0 {
            startRequest(now: now)
            return parse(now: now)
        }
        state = .idle
        deadline = now + configuration.idleTimeout
        return .readMore
    }

    /// `deadline` has passed (the owner may call early; it is checked).
    mutating func deadlinePassed(now: ContinuousClock.Instant) -> Action {
        guard let deadline, now >= deadline else { return .readMore }
        switch state {
        case .idle, .lingering, .closed:
            return close(nil)
        case .head:
            return refuse(HTTPParseError(.requestTimeout, "the request line and headers did not arrive within \(configuration.headTimeout.spokenForReason)"), now: now)
        case .body:
            return refuse(HTTPParseError(.requestTimeout, "the request body did not arrive within \(configuration.bodyTimeout.spokenForReason)"), now: now)
        case .writing:
            let reason = "the client did not read its response within \(configuration.writeTimeout.spokenForReason)"
            return close(Notice(kind: .writeTimedOut, reason: reason, requestID: exchange?.requestID))
        case .admitting, .handling:
            return .readMore
        }
    }

    /// The server is shutting down: idle connections close now, the others after their response.
    mutating func shutdownRequested(now: ContinuousClock.Instant) -> Action {
        closeAfterResponse = true
        return state == .idle ? close(nil) : .readMore
    }

    private mutating func startRequest(now: ContinuousClock.Instant) {
        state = .head
        deadline = now + configuration.headTimeout
        exchange = Exchange(requestID: configuration.makeRequestID(), started: now)
    }

    private mutating func parse(now: ContinuousClock.Instant) -> Action {
        while true {
            let event: HTTPRequestParser.Event?
            do {
                event = try parser.nextEvent()
            } catch {
                return refuse(error, now: now)
            }
            guard let event else { return .readMore }
            switch event {
            case .head(let head):
                exchange?.head = head
                if head.framing != .none, let exchange {
                    state = .admitting
                    deadline = nil
                    return .admit(HTTPRequest(id: exchange.requestID, head: head, body: [], remoteAddress: remoteAddress))
                }
            case .body(let part):
                body += part
            case .end:
                guard let exchange, let head = exchange.head else {
                    return refuse(HTTPParseError(.internalServerError, "the request ended before its head"), now: now)
                }
                let request = HTTPRequest(id: exchange.requestID, head: head, body: body, remoteAddress: remoteAddress)
                body = []
                state = .handling
                deadline = nil
                return .dispatch(request)
            }
        }
    }

    /// Answers the request with the server's own refusal and closes after it: the framing of
    /// whatever follows is unknown.
    private mutating func refuse(_ error: HTTPParseError, headers: HTTPHeaders = [:], now: ContinuousClock.Instant) -> Action {
        let requestID = exchange?.requestID ?? configuration.makeRequestID()
        if exchange == nil { exchange = Exchange(requestID: requestID, started: now) }
        let notice = Notice(kind: .requestRefused(error.status), reason: error.reason, requestID: requestID)
        let bytes = encodeRefusal(error.status, error.reason, headers: headers, connection: .close)
        // After `send`, which names the refused request line in the access log.
        defer { discardInput() }
        return send(bytes, status: error.status, closing: true, notice: notice, now: now)
    }

    /// Drops what was received and not yet handled (body bytes that came with a refused
    /// head, pipelined requests behind it): the connection closes after its answer, so none of
    /// it will be read, and a refused client must not hold server memory while it lingers.
    private mutating func discardInput() {
        body = []
        parser = HTTPRequestParser(limits: configuration.limits)
    }

    private func encodeRefusal(
        _ status: HTTPStatus, _ reason: String, headers: HTTPHeaders = [:], connection: ResponseEncoder.ConnectionHeader
    ) -> [UInt8] {
        var response = configuration.rejectionResponse(status, reason)
        response.status = status
        for field in headers { response.headers.replaceOrAdd(name: field.name, value: field.value) }
        return ResponseEncoder.encode(response, connection: connection) ?? ResponseEncoder.fallback(status, reason: reason)
    }

    private mutating func send(_ bytes: [UInt8], status: HTTPStatus, closing: Bool, notice: Notice?, now: ContinuousClock.Instant) -> Action {
        let started = exchange?.started ?? now
        // A head refused after its request line (431, 413 from Content-Length…) still names it.
        let requestLine = exchange?.head.map { ($0.method, $0.target.path) } ?? parser.requestLineSoFar
        let record = ExchangeRecord(
            requestID: exchange?.requestID ?? "-", method: requestLine?.0, path: requestLine?.1,
            status: status, duration: started.duration(to: now), notice: notice)
        state = .writing(closeAfter: closing)
        deadline = now + configuration.writeTimeout
        return .send(bytes, record)
    }

    private mutating func close(_ notice: Notice?) -> Action {
        state = .closed
        deadline = nil
        exchange = nil
        return .close(notice)
    }
}
