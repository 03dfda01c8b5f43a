import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PayPanel
import PayPanelHTTP
import TestSupport
import Testing

/// The limits of PayPanel's URLSession use, on a loopback http server: the body limit while
/// reading and from Content-Length, our own deadline, redirects only to https, the APNs
/// transport's answer bound.
@Suite struct BoundedURLSessionTests {
    func request(_ url: String) -> URLRequest { URLRequest(url: URL(string: url)!) }

    @Test func aBodyAboveTheLimitIsCutOffWhileReading() throws {
        let server = try LoopbackHTTPServer(routes: [
            "/chunked": .ok(body: [UInt8](repeating: 7, count: 50_000), contentType: "image/png", chunkSize: 1000),
            "/announced": .announce(10_000_000),
            "/small": .ok(body: [1, 2, 3], contentType: "image/png"),
        ])
        defer { server.stop() }
        let session = BoundedURLSession()
        #expect(session.send(request(server.url("/chunked")), maximumBytes: 10_000, timeout: .seconds(30)).failure == .tooLarge(limit: 10_000))
        #expect(session.send(request(server.url("/announced")), maximumBytes: 10_000, timeout: .seconds(30)).failure == .tooLarge(limit: 10_000))
        #expect(session.send(request(server.url("/small")), maximumBytes: 3, timeout: .seconds(30)).success?.body == [1, 2, 3])
    }

    @Test func aServerThatNeverAnswersIsCutAtOurDeadline() throws {
        let server = try LoopbackHTTPServer(routes: ["/stall": .stall])
        defer { server.stop() }
        // Not a timed assertion: only that it ends as a timeout (the deadline is ours, not URLSession's).
        #expect(BoundedURLSession().send(request(server.url("/stall")), maximumBytes: 100, timeout: .milliseconds(300)).failure == .timedOut)
    }

    @Test func redirectsAreFollowedOnlyToHTTPS() throws {
        let server = try LoopbackHTTPServer(routes: ["/moved": .redirect(302, location: "http://127.0.0.1:1/elsewhere.png")])
        defer { server.stop() }
        guard case .redirectRefused(let reason)? = BoundedURLSession(maximumRedirects: 3).send(
            request(server.url("/moved")), maximumBytes: 100, timeout: .seconds(30)).failure
        else {
            Issue.record("an http redirect was followed")
            return
        }
        #expect(reason.contains("not https"))
    }

    @Test func theAPNsTransportBoundsItsAnswers() async throws {
        let server = try LoopbackHTTPServer(routes: [
            "/3/device/big": .ok(body: [UInt8](repeating: 0x20, count: 20_000), contentType: "application/json"),
            "/3/device/small": .ok(body: Array(#"{"reason":"BadTopic"}"#.utf8), contentType: "application/json"),
        ])
        defer { server.stop() }
        let transport = URLSessionAPNsTransport(timeout: .seconds(30))
        await #expect(throws: APNsTransportError.self) { try await transport.post(url: server.url("/3/device/big"), headers: [], body: [1]) }
        let answer = try await transport.post(url: server.url("/3/device/small"), headers: [], body: [1])
        #expect(APNsResponse(status: answer.status, apnsID: nil, body: answer.body).reason == "BadTopic")
        // A reason that is not a plain word, or a body past 4096 bytes, is not read as a reason.
        #expect(APNsResponse(status: 400, apnsID: nil, body: Array(#"{"reason":"Bad Topic\n"}"#.utf8)).reason == nil)
        #expect(APNsResponse(status: 400, apnsID: nil, body: Array(#"{"reason":"BadTopic","x":"\#(String(repeating: "y", count: 5000))"}"#.utf8)).reason == nil)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
    var success: Success? { if case .success(let value) = self { value } else { nil } }
}
