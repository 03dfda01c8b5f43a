import Foundation

/// Reads an HTTP/1.1 response as its bytes arrive: the status line and headers, then the body
/// framed by `Content-Length`, by chunked transfer coding, or by the end of the connection.
/// Bounded everywhere: the head may not exceed 32 KB and the body may not exceed the limit
/// given, so a hostile server can neither exhaust memory nor make the reader loop forever.
package struct HTTPResponseReader {
    package static let maximumHeadBytes = 32 * 1024

    private enum Framing {
        case length(Int)
        case chunked
        case untilClose
    }

    private enum ChunkState {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailer
    }

    package let maximumBodyBytes: Int
    /// `.onlyOK` for media fetches (only a 200's body is wanted); `.every` for API calls, whose
    /// error statuses carry a JSON envelope; `.none` when the status is the whole answer.
    package let bodies: HTTPClient.Bodies
    package private(set) var status: Int?
    package private(set) var headers: [(name: String, value: String)] = []
    package private(set) var body: [UInt8] = []
    package private(set) var isComplete = false
    private var pending: [UInt8] = []
    private var framing: Framing?
    private var chunkState = ChunkState.size

    package init(maximumBodyBytes: Int, bodies: HTTPClient.Bodies = .onlyOK) {
        self.maximumBodyBytes = maximumBodyBytes
        self.bodies = bodies
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Feeds received bytes. After the head of a response whose body is not wanted (any status
    /// but 200) the response counts as complete.
    package mutating func consume(_ bytes: [UInt8]) throws(HTTPClientError) {
        pending += bytes
        if status == nil {
            guard let end = headEnd() else {
                if pending.count > HTTPResponseReader.maximumHeadBytes {
                    throw HTTPClientError(.protocolError, "the response headers are longer than \(HTTPResponseReader.maximumHeadBytes) bytes")
                }
                return
            }
            try parseHead(Array(pending[0..<end]))
            pending.removeFirst(end + 4)
            if !wantsBody(of: status) {
                isComplete = true
                return
            }
        }
        try readBody()
    }

    /// The connection closed: complete for a body framed by the close, an error otherwise.
    package mutating func endOfStream() throws(HTTPClientError) {
        if isComplete { return }
        guard status != nil else {
            throw HTTPClientError(.protocolError, "the server closed the connection before sending a complete response head")
        }
        if case .untilClose = framing {
            isComplete = true
            return
        }
        throw HTTPClientError(.protocolError, "the server closed the connection after \(body.count) body bytes, before the end of the body")
    }

    private func wantsBody(of status: Int?) -> Bool {
        switch bodies {
        case .every: true
        case .onlyOK: status == 200
        case .none: false
        }
    }

    private func headEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for index in 0...(pending.count - 4)
        where pending[index] == 13 && pending[index + 1] == 10 && pending[index + 2] == 13 && pending[index + 3] == 10 {
            return index
        }
        return nil
    }

    private mutating func parseHead(_ head: [UInt8]) throws(HTTPClientError) {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]) else {
            throw HTTPClientError(.protocolError, "the server did not answer with HTTP/1.x (status line \(HTTPClientError.quoted(String(statusLine.prefix(60)))))")
        }
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                throw HTTPClientError(.protocolError, "malformed response header \(HTTPClientError.quoted(String(line.prefix(60))))")
            }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        status = code
        if let encoding = header("Transfer-Encoding"), encoding.lowercased().contains("chunked") {
            framing = .chunked
        } else if let lengthText = header("Content-Length") {
            guard let length = Int(lengthText), length >= 0 else {
                throw HTTPClientError(.protocolError, "invalid Content-Length \(HTTPClientError.quoted(lengthText))")
            }
            if wantsBody(of: code), length > maximumBodyBytes {
                throw HTTPClientError(.tooLarge, "the server announces \(length) bytes, above the \(maximumBodyBytes)-byte limit")
            }
            framing = .length(length)
        } else {
            framing = .untilClose
        }
    }

    private mutating func appendBody(_ bytes: ArraySlice<UInt8>) throws(HTTPClientError) {
        guard body.count + bytes.count <= maximumBodyBytes else {
            throw HTTPClientError(.tooLarge, "the body is above the \(maximumBodyBytes)-byte limit")
        }
        body += bytes
    }

    private mutating func readBody() throws(HTTPClientError) {
        switch framing {
        case .length(let length):
            let take = min(length - body.count, pending.count)
            try appendBody(pending[0..<take])
            pending.removeFirst(take)
            if body.count == length { isComplete = true }
        case .untilClose:
            try appendBody(pending[...])
            pending.removeAll()
        case .chunked:
            try readChunks()
        case nil:
            break
        }
    }

    /// Decodes as many chunks as `pending` holds; stops in the middle of one and resumes later.
    private mutating func readChunks() throws(HTTPClientError) {
        while !isComplete {
            switch chunkState {
            case .size:
                guard let lineEnd = lineEnd() else { return try checkLineLength() }
                let line = String(decoding: pending[0..<lineEnd], as: UTF8.self)
                let sizeText = String(line.prefix { $0 != ";" }).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !sizeText.isEmpty, sizeText.count <= 8, let size = Int(sizeText, radix: 16) else {
                    throw HTTPClientError(.protocolError, "invalid chunk size \(HTTPClientError.quoted(String(line.prefix(20))))")
                }
                pending.removeFirst(lineEnd + 2)
                chunkState = size == 0 ? .trailer : .data(remaining: size)
            case .data(let remaining):
                guard !pending.isEmpty else { return }
                let take = min(remaining, pending.count)
                try appendBody(pending[0..<take])
                pending.removeFirst(take)
                chunkState = take == remaining ? .dataEnd : .data(remaining: remaining - take)
            case .dataEnd:
                guard pending.count >= 2 else { return }
                guard pending[0] == 13, pending[1] == 10 else {
                    throw HTTPClientError(.protocolError, "a chunk is longer than its announced size")
                }
                pending.removeFirst(2)
                chunkState = .size
            case .trailer:
                guard let lineEnd = lineEnd() else { return try checkLineLength() }
                pending.removeFirst(lineEnd + 2)
                if lineEnd == 0 { isComplete = true }
            }
        }
    }

    private func lineEnd() -> Int? {
        guard pending.count >= 2 else { return nil }
        for index in 0...(pending.count - 2) where pending[index] == 13 && pending[index + 1] == 10 {
            return index
        }
        return nil
    }

    private func checkLineLength() throws(HTTPClientError) {
        if pending.count > 1024 {
            throw HTTPClientError(.protocolError, "a chunk-size or trailer line is longer than 1024 bytes")
        }
    }
}
