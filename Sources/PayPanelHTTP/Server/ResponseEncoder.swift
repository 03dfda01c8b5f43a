/// Writes responses in HTTP/1.1 wire form. The server owns framing: it writes
/// `Content-Length` and `Connection` itself and drops any a handler set, and it refuses to
/// write a status or header that could split the response (a CR or LF in a value would let
/// a handler echoing input inject headers), returning nil so the caller can send a 500.
enum ResponseEncoder {
    /// What the `Connection` header says.
    enum ConnectionHeader {
        /// HTTP/1.1 keep-alive, the default: no header.
        case omitted
        case close
        /// Keep-alive spelled out for an HTTP/1.0 client that asked for it.
        case keepAlive
    }

    /// The interim answer to `Expect: 100-continue`.
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The wire bytes of `response`, or nil when its status or a header is not writable.
    /// For a `HEAD` request (`isHead`) the body is left out but its `Content-Length` kept
    /// (RFC 9110 §9.3.2): a client reads no body after HEAD, so sending one would be read as
    /// the start of the next response.
    static func encode(_ response: HTTPResponse, connection: ConnectionHeader, isHead: Bool = false) -> [UInt8]? {
        let status = response.status
        guard (200...599).contains(status.code), status.reasonPhrase.utf8.allSatisfy(HTTPGrammar.isFieldValueByte) else {
            return nil
        }
        let body = status.forbidsBody ? [] : response.body
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + response.headers.count * 32 + body.count)
        bytes += "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n".utf8
        for field in response.headers where !isManagedByServer(field.name) {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPGrammar.isTokenCharacter),
                field.value.utf8.allSatisfy(HTTPGrammar.isFieldValueByte)
            else { return nil }
            bytes += field.name.utf8
            bytes += ": ".utf8
            bytes += field.value.utf8
            bytes += "\r\n".utf8
        }
        if !status.forbidsBody {
            bytes += "Content-Length: \(body.count)\r\n".utf8
        }
        switch connection {
        case .omitted: break
        case .close: bytes += "Connection: close\r\n".utf8
        case .keepAlive: bytes += "Connection: keep-alive\r\n".utf8
        }
        bytes += "\r\n".utf8
        if !isHead { bytes += body }
        return bytes
    }

    /// A response the server always can write, for when a handler's or a configured
    /// responder's could not be.
    static func fallback(_ status: HTTPStatus, reason: String) -> [UInt8] {
        let body = Array((reason + "\n").utf8)
        return Array("HTTP/1.1 \(status.code) \(HTTPStatus(code: status.code).reasonPhrase)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
    }

    private static func isManagedByServer(_ name: String) -> Bool {
        HTTPHeaders.namesMatch(name, "content-length") || HTTPHeaders.namesMatch(name, "transfer-encoding")
            || HTTPHeaders.namesMatch(name, "connection")
    }
}
