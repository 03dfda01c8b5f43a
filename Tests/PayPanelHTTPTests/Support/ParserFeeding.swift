import PayPanelHTTP

/// One request as the parser reported it: the head, the body parts joined, and whether `end` came.
struct ParsedRequest: Equatable {
    var head: HTTPRequestHead
    var body: [UInt8] = []
    var ended = false
}

/// The result of feeding a byte sequence: the requests seen, then the error if one was thrown.
struct ParseOutcome: Equatable {
    var requests: [ParsedRequest] = []
    var error: HTTPParseError?
}

/// Feeds `chunks` one after the other, draining every event after each, the way a connection
/// does, and keeps parsing past `end` (pipelining).
func parse(chunks: [ArraySlice<UInt8>], limits: HTTPRequestParser.Limits = .init()) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = ParseOutcome()
    for chunk in chunks {
        parser.append(chunk)
        do {
            while let event = try parser.nextEvent() {
                switch event {
                case .head(let head): outcome.requests.append(ParsedRequest(head: head))
                case .body(let part): outcome.requests[outcome.requests.count - 1].body += part
                case .end: outcome.requests[outcome.requests.count - 1].ended = true
                }
            }
        } catch {
            outcome.error = error
            return outcome
        }
    }
    return outcome
}

/// Every way of cutting `bytes` in two, then byte by byte: the outcomes a parser must agree on.
func everySplit(of text: String) -> [[ArraySlice<UInt8>]] {
    let bytes = Array(text.utf8)
    var splits = (0...bytes.count).map { [bytes[..<$0], bytes[$0...]] }
    splits.append(bytes.indices.map { bytes[$0...$0] })
    return splits
}
