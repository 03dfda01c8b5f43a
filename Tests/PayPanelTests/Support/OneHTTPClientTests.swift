import Foundation
import Testing

/// PayPanel has one HTTP client (`HTTPClient`, in Sources/PayPanelHTTP/Client): one place that
/// writes a request line, one that makes a URLSession, one that opens an outgoing socket. A
/// second writer would be a second copy of the limits, deadlines and header rules to keep
/// right; these lines find one appearing anywhere else in Sources.
@Suite struct OneHTTPClientTests {
    static let clientFolder = "PayPanelHTTP/Client/"
    /// The load generator of `bench serve`: keep-alive on purpose (it measures the server, and
    /// one connection per request would measure connects), never used by the product.
    static let allowed: Set<String> = ["PayPanelReliability/Benchmarks/Serve/BenchmarkHTTPClient.swift"]

    static func found<Output>(_ pattern: Regex<Output>) throws -> (hits: [String], files: Int) {
        let lines = try SourceCommentTests.lines(under: "Sources")
        let hits = lines.filter { !$0.file.hasPrefix(clientFolder) && !allowed.contains($0.file) && $0.line.contains(pattern) }
            .map { "Sources/\($0.file):\($0.number): \($0.line.trimmingCharacters(in: .whitespaces))" }
        return (hits, Set(lines.map(\.file)).count)
    }

    @Test func onlyTheClientWritesAnHTTPRequestLine() throws {
        // `"\(method) \(target) HTTP/1.1\r\n`, `"GET /x HTTP/1.0\r\n"`: a method or an
        // interpolation, a target, the version, CRLF. Status lines start with the version.
        let (hits, files) = try Self.found(/(\)|[A-Z]+) +(\\\(|\/)\S* +HTTP\/1\.[01]\\r\\n/)
        #expect(files > 300, "the walk found the sources")
        #expect(hits.isEmpty, "send requests with HTTPClient (Sources/PayPanelHTTP/Client):\n\(hits.joined(separator: "\n"))")
    }

    @Test func onlyTheClientMakesAURLSession() throws {
        let (hits, _) = try Self.found(/URLSession\s*\(\s*configuration|URLSession\.shared|URLSessionConfiguration\./)
        #expect(hits.isEmpty, "send requests with HTTPClient (its BoundedURLSession):\n\(hits.joined(separator: "\n"))")
    }

    @Test func onlyTheClientOpensAnOutgoingConnection() throws {
        // `connect(` on a socket descriptor (not `epoll_ctl`, not a database driver's connect).
        let (hits, _) = try Self.found(/SocketConnection\.connect|Glibc\.connect\(|Foundation\.connect\(|[^.\w]connect\(\s*(descriptor|fd|socket)/)
        #expect(hits.isEmpty, "open connections with HTTPClient:\n\(hits.joined(separator: "\n"))")
    }

    /// The lint lines above do match what they look for.
    @Test func theLintLinesMatchTheWritersTheyLookFor() {
        #expect(#"var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n""#.contains(/(\)|[A-Z]+) +(\\\(|\/)\S* +HTTP\/1\.[01]\\r\\n/))
        #expect(#"let r = "GET /a.png HTTP/1.1\r\nHost: x\r\n\r\n""#.contains(/(\)|[A-Z]+) +(\\\(|\/)\S* +HTTP\/1\.[01]\\r\\n/))
        #expect(!#""HTTP/1.1 200 OK\r\n""#.contains(/(\)|[A-Z]+) +(\\\(|\/)\S* +HTTP\/1\.[01]\\r\\n/))
    }
}
