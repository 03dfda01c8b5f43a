/// A push parser for HTTP/1.1 requests: append bytes as they arrive, then pull events
/// (`head`, `body` parts, `end`) until it asks for more. Every limit is checked against the
/// bytes buffered so far, so an oversized head is refused at its 16,385th byte rather than
/// after it has been read whole, and a body is refused from its `Content-Length` (or a chunk
/// size) before any of it is read.
///
/// It performs no I/O and keeps no clock; timeouts belong to its owner. After `.end` it is
/// ready for the next request, but only parses it when asked: its owner answers one request
/// at a time and leaves pipelined bytes buffered until then. After an error it stays failed
/// and rethrows the same error, because the framing of anything after it is unknown.
public struct HTTPRequestParser: Sendable {
    /// The bounds the parser enforces while it reads.
    public struct Limits: Sendable, Equatable {
        /// Request line plus header lines, line endings included; beyond it, 431.
        public var maxHeadBytes: Int
        /// Number of header lines (and of trailer lines); beyond it, 431.
        public var maxHeaderCount: Int
        /// Body size, from `Content-Length` or the sum of chunk sizes; beyond it, 413.
        public var maxBodyBytes: Int
        /// One chunk-size line including extensions; beyond it, 400.
        public var maxChunkLineBytes: Int
        /// Chunk extensions of one request together (they are read and dropped, but a client
        /// could otherwise send a gigabyte of them in a one-byte body); beyond it, 400.
        public var maxChunkExtensionBytes: Int
        /// The request target; beyond it, 414 (RFC 9112 §3 asks for at least 8,000 octets).
        public var maxTargetBytes: Int

        /// The defaults: a 16 KiB head of at most 100 fields and an 8 KiB target, a 1 MiB body,
        /// 1 KiB chunk lines and 4 KiB of chunk extensions per request.
        public init(
            maxHeadBytes: Int = 16 * 1024, maxHeaderCount: Int = 100, maxBodyBytes: Int = 1024 * 1024, maxChunkLineBytes: Int = 1024,
            maxChunkExtensionBytes: Int = 4 * 1024, maxTargetBytes: Int = 8 * 1024
        ) {
            self.maxHeadBytes = maxHeadBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
            self.maxChunkLineBytes = maxChunkLineBytes
            self.maxChunkExtensionBytes = maxChunkExtensionBytes
            self.maxTargetBytes = maxTargetBytes
        }
    }

    /// What the parser found; a request is `head`, zero or more `body` parts, then `end`.
    public enum Event: Sendable, Equatable {
        case head(HTTPRequestHead)
        case body([UInt8])
        case end
    }

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case endOfMessage
        case failed(HTTPParseError)
    }

    public let limits: Limits
    private var state: State = .head
    private var buffer: [UInt8] = []
    /// Start of the bytes not yet consumed.
    private var position = 0
    /// Where the search for the next LF resumes, so a line dripping in byte by byte is
    /// scanned once rather than once per byte.
    private var scanPosition = 0
    // The request being read.
    private var requestLine: RequestLine?
    private var fields: [HTTPHeaders.Field] = []
    private var headBytes = 0
    private var bodyBytes = 0
    private var chunkExtensionBytes = 0
    private var trailerBytes = 0
    private var trailerCount = 0

    /// A parser waiting for the first byte of a request.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received but not yet parsed, e.g. a pipelined request waiting its turn.
    public var bufferedByteCount: Int { buffer.count - position }

    /// Whether a request has started (some of it was parsed) and not ended.
    public var isInsideRequest: Bool {
        switch state {
        case .head: requestLine != nil || headBytes > 0
        case .failed: false
        default: true
        }
    }

    /// The method and raw path of the request whose head is being read, once its request
    /// line is complete: what an access log can still name when the head is then refused.
    var requestLineSoFar: (method: HTTPMethod, path: String)? {
        requestLine.map { ($0.method, $0.target.path) }
    }

    /// Adds received bytes; nothing is parsed until `nextEvent()`.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next event, or nil when more bytes are needed. Throws the reason the request is
    /// refused, and the same reason on every later call.
    public mutating func nextEvent() throws(HTTPParseError) -> Event? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> Event? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .head:
                guard let line = try nextLine(of: .head) else { return nil }
                headBytes += line.length
                if let event = try headLine(line.bytes) { return event }
            case .fixedBody(let remaining):
                guard let part = takeBytes(upTo: remaining) else { return nil }
                state = part.count == remaining ? .endOfMessage : .fixedBody(remaining: remaining - part.count)
                return .body(part)
            case .chunkSizeLine:
                guard let line = try nextLine(of: .chunkSize) else { return nil }
                let (size, extensionBytes) = try ChunkSizeLine.parse(line.bytes)
                chunkExtensionBytes += extensionBytes
                guard chunkExtensionBytes <= limits.maxChunkExtensionBytes else {
                    throw .badRequest("the chunk extensions of this request total more than \(limits.maxChunkExtensionBytes) bytes")
                }
                guard size <= limits.maxBodyBytes - bodyBytes else { throw bodyTooLarge() }
                bodyBytes += size
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                guard let part = takeBytes(upTo: remaining) else { return nil }
                state = part.count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - part.count)
                return .body(part)
            case .chunkDataEnd:
                guard bufferedByteCount >= 2 else { return nil }
                guard buffer[position] == HTTPGrammar.cr, buffer[position + 1] == HTTPGrammar.lf else {
                    throw .badRequest("chunk data is not followed by CR LF; the chunk is longer than its size says")
                }
                position += 2
                scanPosition = position
                state = .chunkSizeLine
            case .trailers:
                guard let line = try nextLine(of: .trailer) else { return nil }
                trailerBytes += line.length
                if line.bytes.isEmpty {
                    state = .endOfMessage
                    continue
                }
                trailerCount += 1
                guard trailerCount <= limits.maxHeaderCount else {
                    throw HTTPParseError(.requestHeaderFieldsTooLarge, "more than \(limits.maxHeaderCount) trailer fields")
                }
                // Trailers are validated like header fields and then dropped: nothing in
                // this server reads them, and merging them into the head is how smuggling starts.
                _ = try FieldLineParser.parse(line.bytes)
            case .endOfMessage:
                resetForNextRequest()
                return .end
            }
        }
    }

    /// Handles one line of the head; returns `.head` at the empty line that ends it.
    private mutating func headLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Event? {
        guard let requestLine else {
            // RFC 9112 §2.2: ignore empty lines before the request line (some clients send
            // CR LF after a body). They still count against the head limit.
            if !line.isEmpty { self.requestLine = try RequestLineParser.parse(line, maxTargetBytes: limits.maxTargetBytes) }
            return nil
        }
        if !line.isEmpty {
            guard fields.count < limits.maxHeaderCount else {
                throw HTTPParseError(.requestHeaderFieldsTooLarge, "more than \(limits.maxHeaderCount) header fields")
            }
            fields.append(try FieldLineParser.parse(line))
            return nil
        }
        let head = try RequestFraming.head(for: requestLine, fields: HTTPHeaders(fields), limits: limits)
        self.requestLine = nil
        fields = []
        switch head.framing {
        case .none: state = .endOfMessage
        case .contentLength(let length): state = .fixedBody(remaining: length)
        case .chunked: state = .chunkSizeLine
        }
        return .head(head)
    }

    /// The three kinds of line, each with its own budget.
    private enum LineKind {
        case head, chunkSize, trailer
    }

    /// Room on a request line for the method, the version and the spaces around a target of
    /// `maxTargetBytes`: a longer line can only hold a longer target (or an absurd method).
    private static let requestLineOverhead = 64

    /// Whether the head line being read is the request line.
    private var readingRequestLine: Bool { requestLine == nil }

    /// The bytes a line of `kind` may still take, CR LF included.
    private func budget(for kind: LineKind) -> Int {
        switch kind {
        case .head where readingRequestLine:
            min(limits.maxHeadBytes - headBytes, limits.maxTargetBytes + Self.requestLineOverhead)
        case .head: limits.maxHeadBytes - headBytes
        case .chunkSize: limits.maxChunkLineBytes
        case .trailer: limits.maxHeadBytes - trailerBytes
        }
    }

    /// The 414 for a request target longer than the limit.
    static func targetTooLong(_ limit: Int) -> HTTPParseError {
        HTTPParseError(.uriTooLong, "the request target is longer than \(limit) bytes")
    }

    private func lineTooLong(_ kind: LineKind) -> HTTPParseError {
        switch kind {
        case .head where readingRequestLine && limits.maxTargetBytes + Self.requestLineOverhead < limits.maxHeadBytes - headBytes:
            Self.targetTooLong(limits.maxTargetBytes)
        case .head:
            HTTPParseError(.requestHeaderFieldsTooLarge, "the request line and headers are longer than \(limits.maxHeadBytes) bytes")
        case .chunkSize:
            .badRequest("a chunk-size line is longer than \(limits.maxChunkLineBytes) bytes")
        case .trailer:
            HTTPParseError(.requestHeaderFieldsTooLarge, "the trailer section is longer than \(limits.maxHeadBytes) bytes")
        }
    }

    /// The next CR LF-terminated line without its terminator, or nil until one is buffered.
    /// The line's budget is checked before the line is complete, on every byte that arrives.
    private mutating func nextLine(of kind: LineKind) throws(HTTPParseError) -> (bytes: ArraySlice<UInt8>, length: Int)? {
        let budget = budget(for: kind)
        let searchStart = max(position, scanPosition)
        guard let lineFeed = buffer[searchStart...].firstIndex(of: HTTPGrammar.lf) else {
            scanPosition = buffer.count
            let pending = buffer.count - position
            // Even if the very next byte ended the line, it would not fit.
            if pending > 0 && pending >= budget { throw lineTooLong(kind) }
            return nil
        }
        let length = lineFeed + 1 - position
        guard length <= budget else { throw lineTooLong(kind) }
        guard lineFeed > position, buffer[lineFeed - 1] == HTTPGrammar.cr else {
            throw .badRequest("a line ends with LF alone; HTTP lines must end with CR LF")
        }
        let line = buffer[position..<(lineFeed - 1)]
        if line.contains(HTTPGrammar.cr) {
            throw .badRequest("a line contains a CR that is not followed by LF")
        }
        position = lineFeed + 1
        scanPosition = position
        return (line, length)
    }

    /// Up to `limit` buffered bytes, or nil when none are buffered.
    private mutating func takeBytes(upTo limit: Int) -> [UInt8]? {
        let count = min(bufferedByteCount, limit)
        guard count > 0 else { return nil }
        let part = Array(buffer[position..<(position + count)])
        position += count
        scanPosition = position
        return part
    }

    private func bodyTooLarge() -> HTTPParseError {
        HTTPParseError(.contentTooLarge, "the chunked body is larger than \(limits.maxBodyBytes) bytes")
    }

    private mutating func resetForNextRequest() {
        state = .head
        headBytes = 0
        bodyBytes = 0
        chunkExtensionBytes = 0
        trailerBytes = 0
        trailerCount = 0
    }

    /// Drops consumed bytes so the buffer holds only what is still unparsed. When everything
    /// is consumed the storage is released: an idle keep-alive connection then holds no buffer.
    private mutating func compact() {
        guard position > 0 else { return }
        if position == buffer.count {
            buffer = []
        } else if position >= 4096 || position * 2 >= buffer.count {
            buffer.removeSubrange(0..<position)
        } else {
            return
        }
        scanPosition -= position
        position = 0
    }
}
