import Foundation
import TestSupport
import PayPanelHTTP
import Synchronization
import Testing

/// Requests are decided from their head: a route's credential is checked before any of the
/// body is read, the body budget is reserved before it is read, `100 Continue` only follows a
/// good credential, and `HEAD` is answered by the `GET` route. Against a real server.
@Suite struct AdmissionTests {
    /// Accepts `Authorization: Bearer good` only.
    struct TestKey: RouteCredential {
        var name: String { "test key" }
        func authenticate(_ context: RequestContext) async throws -> (any Sendable)? {
            guard context.headers["authorization"] == "Bearer good" else {
                throw HTTPError(.unauthorized, "no good key", headers: ["WWW-Authenticate": "Bearer"])
            }
            return "caller-1"
        }
    }

    /// A router with one guarded upload route and one public page; counts handler runs.
    private static func router(runs: Recorder<String>) -> Router {
        var router = Router()
        router.post("/upload", credential: TestKey()) { context in
            runs.record("upload")
            return .text("got \(context.body.count) bytes from \(context.principal(as: String.self) ?? "nobody")")
        }
        router.get("/page", credential: .none) { _ in
            runs.record("page")
            return .text("hello", headers: ["X-Page": "1"])
        }
        return router
    }

    @Test func aRequestWithoutItsCredentialIsAnswered401BeforeItsBodyIsSent() async throws {
        let runs = Recorder<String>()
        try await withServer(admission: Self.router(runs: runs).admission) { server in
            let port = server.port
            let (response, closed) = try await onThread {
                let client = try RawClient.connect(to: port)
                // A megabyte announced, ten bytes sent: the answer cannot have waited for the body.
                try client.send("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\n0123456789")
                return (try client.readResponse(), try client.waitForClose())
            }
            #expect(response.status == 401)
            #expect(response.headers["Connection"] == "close")
            #expect(response.headers["WWW-Authenticate"] == "Bearer")
            #expect(closed, "the unread body is never parsed as a next request")
            #expect(runs.all.isEmpty, "no handler ran")
        }
    }

    @Test func aGoodCredentialReadsTheBodyAndHandsTheCallerToTheHandler() async throws {
        let runs = Recorder<String>()
        try await withServer(admission: Self.router(runs: runs).admission) { server in
            let port = server.port
            let response = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer good\r\nContent-Length: 5\r\n\r\nhello")
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.text == "got 5 bytes from caller-1")
            #expect(runs.all == ["upload"])
        }
    }

    @Test func continueIsSentOnlyAfterTheCredentialIsChecked() async throws {
        let runs = Recorder<String>()
        try await withServer(admission: Self.router(runs: runs).admission) { server in
            let port = server.port
            let refused = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
                return try client.readResponse()
            }
            #expect(refused.status == 401, "a client waiting for 100 Continue learns at once that it may not send")
            let (interim, final) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /upload HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer good\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
                let interim = try client.readResponse()
                try client.send("hello")
                return (interim, try client.readResponse())
            }
            #expect(interim.status == 100)
            #expect(final.status == 200 && final.text == "got 5 bytes from caller-1")
        }
    }

    @Test func unknownRoutesAndWrongMethodsAreRefusedWithoutReadingTheBody() async throws {
        let runs = Recorder<String>()
        try await withServer(admission: Self.router(runs: runs).admission) { server in
            let port = server.port
            let responses = try await onThread {
                try ["POST /nowhere", "PUT /upload"].map { line in
                    let client = try RawClient.connect(to: port)
                    try client.send("\(line) HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\nabc")
                    return (try client.readResponse(), try client.waitForClose())
                }
            }
            #expect(responses.map(\.0.status) == [404, 405])
            #expect(responses.allSatisfy { $0.1 }, "both closed: their bodies were never read")
            #expect(runs.all.isEmpty)
        }
    }

    @Test func headIsAnsweredByTheGetRouteWithoutABody() async throws {
        let runs = Recorder<String>()
        try await withServer(admission: Self.router(runs: runs).admission) { server in
            let port = server.port
            let (head, get) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("HEAD /page HTTP/1.1\r\nHost: a\r\n\r\n")
                let head = try client.readHeadResponse()
                // Were a body sent after HEAD's head, it would be read here as the next response.
                try client.send("GET /page HTTP/1.1\r\nHost: a\r\n\r\n")
                return (head, try client.readResponse())
            }
            #expect(head.status == 200 && head.headers["Content-Length"] == "5" && head.headers["X-Page"] == "1")
            #expect(head.body.isEmpty)
            #expect(get.status == 200 && get.text == "hello")
            #expect(runs.all == ["page", "page"])
        }
    }

    @Test func bodiesBeyondTheServersBudgetAre503WithRetryAfter() async throws {
        // Room for one 8-byte body at a time: the second request waits for none of it.
        var configuration = HTTPServer.Configuration()
        configuration.limits.maxBodyBytes = 8
        configuration.maxBufferedBodyBytes = 10
        let release = Gate()
        let entered = Recorder<Int>()
        let handler: HTTPServer.Handler = { request in
            entered.record(request.body.count)
            await release.wait()
            return .text("stored")
        }
        try await withServer(configuration, handler: handler) { server in
            let port = server.port
            let first = try await onThread { () throws -> RawClient in
                let client = try RawClient.connect(to: port)
                try client.send("POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 8\r\n\r\n12345678")
                return client
            }
            #expect(await eventually { entered.all == [8] }, "the first request holds its 8 bytes in its handler")
            let (refused, closed) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 8\r\n\r\n")
                return (try client.readResponse(), try client.waitForClose())
            }
            #expect(refused.status == 503)
            #expect(refused.headers["Retry-After"] == "1")
            #expect(refused.text.contains("request bodies"))
            #expect(closed)
            release.open()
            let answer = try await onThread { try first.readResponse() }
            #expect(answer.text == "stored")
            // The first request's share is back: the next one fits again.
            let again = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /c HTTP/1.1\r\nHost: a\r\nContent-Length: 8\r\n\r\n12345678")
                return try client.readResponse()
            }
            #expect(again.status == 200)
        }
    }

    @Test func aBudgetSmallerThanOneBodyIsRefusedAtStart() {
        var configuration = HTTPServer.Configuration()
        configuration.limits.maxBodyBytes = 100
        configuration.maxBufferedBodyBytes = 99
        #expect(throws: HTTPServerError.self) { try HTTPServer.start(configuration: configuration, handler: echo) }
    }
}
