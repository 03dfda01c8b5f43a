import TestSupport
import PayPanelHTTP
import Synchronization
import Testing

/// The router without sockets: matching, parameters, 404 and 405, middleware, errors.
@Suite struct RouterTests {
    private static func router() -> Router {
        var router = Router()
        router.get("/v1/checkouts/{id}", credential: .none) { context in .text("get \(context.pathParameters["id"] ?? "?")") }
        router.post("/v1/checkouts/{id}/pay", credential: .none) { context in .text("pay \(context.pathParameters["id"] ?? "?")") }
        router.get("/v1/checkouts/search", credential: .none) { _ in .text("search") }
        router.delete("/v1/checkouts/{id}", credential: .none) { _ in .text("deleted") }
        router.get("/", credential: .none) { _ in .text("root") }
        return router
    }

    private static func respond(_ router: Router, _ method: HTTPMethod, _ target: String) async throws -> HTTPResponse {
        await router.respond(to: try HTTPRequest(method: method, target: target))
    }

    @Test func routesToTheHandlerWithDecodedParameters() async throws {
        let response = try await Self.respond(Self.router(), .post, "/v1/checkouts/ab%20c%2Fd/pay")
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == "pay ab c/d")
    }

    @Test func literalSegmentsWinOverParametersWhateverTheOrder() async throws {
        let response = try await Self.respond(Self.router(), .get, "/v1/checkouts/search")
        #expect(String(decoding: response.body, as: UTF8.self) == "search")
        let other = try await Self.respond(Self.router(), .get, "/v1/checkouts/123")
        #expect(String(decoding: other.body, as: UTF8.self) == "get 123")
        let root = try await Self.respond(Self.router(), .get, "/")
        #expect(String(decoding: root.body, as: UTF8.self) == "root")
    }

    @Test func unknownPathsAre404() async throws {
        for target in ["/v1/nothing", "/v1/checkouts", "/v1/checkouts/", "/v1/checkouts//pay", "/v1/checkouts/1/pay/extra"] {
            let response = try await Self.respond(Self.router(), .get, target)
            #expect(response.status == .notFound, "\(target)")
        }
    }

    @Test func knownPathsWithAnotherMethodAre405WithAllow() async throws {
        let response = try await Self.respond(Self.router(), .put, "/v1/checkouts/123")
        #expect(response.status == .methodNotAllowed)
        // HEAD is allowed wherever GET is: the GET route answers it.
        #expect(response.headers["Allow"] == "DELETE, GET, HEAD")
        // /search is matched by the literal GET route and by DELETE /{id}.
        let search = try await Self.respond(Self.router(), .post, "/v1/checkouts/search")
        #expect(search.headers["Allow"] == "DELETE, GET, HEAD")
    }

    @Test func listsEveryRoute() {
        #expect(Self.router().routes.map(\.description) == [
            "GET /v1/checkouts/{id}", "POST /v1/checkouts/{id}/pay", "GET /v1/checkouts/search",
            "DELETE /v1/checkouts/{id}", "GET /",
        ])
        #expect(Self.router().routes[1].pattern.parameterNames == ["id"])
    }

    @Test func middlewareRunsInOrderAndSeesEveryResponse() async throws {
        let trail = Recorder<String>()
        var router = Self.router()
        router.use(Middleware { context, next in
            trail.record("outer in")
            let response = await next(context)
            trail.record("outer out \(response.status.code)")
            return response
        })
        router.use(Middleware { context, next in
            trail.record("inner in \(context.route?.description ?? "none")")
            return await next(context)
        })
        router.use(.requestID())
        _ = try await Self.respond(router, .get, "/v1/missing")
        let response = await router.respond(to: try HTTPRequest(method: .get, target: "/", id: "req-7"))
        #expect(trail.all == ["outer in", "inner in none", "outer out 404", "outer in", "inner in GET /", "outer out 200"])
        #expect(response.headers["X-Request-ID"] == "req-7")
    }

    @Test func thrownErrorsBecomeResponsesWithoutLeakingDetails() async throws {
        struct Secret: Error { let card = "4111111111111111" }
        var router = Router()
        router.get("/teapot", credential: .none) { _ in throw HTTPError(HTTPStatus(code: 418, reasonPhrase: "I'm a teapot"), "short and stout") }
        router.get("/boom", credential: .none) { _ in throw Secret() }
        let teapot = try await Self.respond(router, .get, "/teapot")
        #expect(teapot.status.code == 418)
        #expect(String(decoding: teapot.body, as: UTF8.self) == "short and stout\n")
        let boom = try await Self.respond(router, .get, "/boom")
        #expect(boom.status == .internalServerError)
        #expect(!String(decoding: boom.body, as: UTF8.self).contains("4111"))
    }

    @Test func aCustomErrorResponseGivesOneEnvelope() async throws {
        var router = Self.router()
        router.errorResponse = { error, _ in
            let status = (error as? HTTPError)?.status ?? .internalServerError
            var response = HTTPResponse.json(Array("{\"error\":\(status.code)}".utf8), status: status)
            if let allow = (error as? HTTPError)?.headers["Allow"] { response.headers.add(name: "Allow", value: allow) }
            return response
        }
        let response = try await Self.respond(router, .patch, "/")
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"error\":405}")
        #expect(response.headers["Allow"] == "GET, HEAD")
    }

    @Test func accessLogMiddlewareLogsThePatternNotTheIds() async throws {
        let entries = Recorder<HTTPAccessLogEntry>()
        var router = Self.router()
        router.use(.accessLog { entries.record($0) })
        _ = try await Self.respond(router, .post, "/v1/checkouts/secret-id/pay?token=x")
        _ = try await Self.respond(router, .get, "/nowhere?token=x")
        #expect(entries.all.map(\.path) == ["/v1/checkouts/{id}/pay", "/nowhere"])
        #expect(entries.all.map(\.status.code) == [200, 404])
    }

    @Test(arguments: ["", "v1/x", "/a//b", "/a/", "/{}", "/{1id}", "/a{id}", "/{id}/{id}", "/../x", "/{i-d}"])
    func malformedPatternsAreRefused(_ pattern: String) {
        #expect(throws: RoutePatternError.self) { try RoutePattern(pattern) }
    }

    @Test func contextHasTypedAccessors() async throws {
        let seen = Mutex<RequestContext?>(nil)
        var router = Router()
        router.post("/v1/items/{item}", credential: .none) { context in
            seen.withLock { $0 = context }
            return .text("ok")
        }
        let request = try HTTPRequest(
            method: .post, target: "/v1/items/caf%C3%A9?expand=a&expand=b", headers: ["Content-Type": "text/plain"],
            body: Array("hi".utf8), id: "r1", remoteAddress: HTTPRemoteAddress(host: "::1", port: 9))
        _ = await router.respond(to: request)
        let context = try #require(seen.withLock { $0 })
        #expect(context.pathParameters["item"] == "café")
        #expect(context.queryItems.filter { $0.name == "expand" }.map(\.value) == ["a", "b"])
        #expect(context.headers["content-type"] == "text/plain")
        #expect(context.body == Array("hi".utf8))
        #expect(context.requestID == "r1")
        #expect(context.remoteAddress?.description == "[::1]:9")
        #expect(context.route?.pattern.text == "/v1/items/{item}")
        #expect(context.path == "/v1/items/caf%C3%A9")
    }
}

/// The router behind a real server.
@Suite struct RouterSocketTests {
    @Test func routes404And405AndDecodedParametersOverTheSocket() async throws {
        var router = Router()
        router.use(.requestID())
        router.post("/v1/checkouts/{id}/pay", credential: .none) { context in .text(context.pathParameters["id"] ?? "") }
        try await withServer(admission: router.admission) { server in
            let port = server.port
            let responses = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /v1/checkouts/ab%20c%2F%E2%82%AC/pay HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")
                try client.send(get("/v1/checkouts/1/pay"))
                try client.send(get("/v1/unknown"))
                return try (0..<3).map { _ in try client.readResponse() }
            }
            #expect(responses[0].text == "ab c/€")
            #expect(responses[0].headers["X-Request-ID"]?.count == 16)
            #expect(responses[1].status == 405)
            #expect(responses[1].headers["Allow"] == "POST")
            #expect(responses[2].status == 404)
        }
    }
}
