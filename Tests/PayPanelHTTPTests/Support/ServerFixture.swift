import Foundation
import TestSupport
import PayPanelHTTP
import Synchronization
import Testing

/// Starts a server on a free port, runs `body`, and always shuts the server down.
func withServer<T: Sendable>(
    _ configuration: HTTPServer.Configuration = .init(), handler: @escaping HTTPServer.Handler = echo,
    _ body: (HTTPServer) async throws -> T
) async throws -> T {
    try await running(try HTTPServer.start(configuration: configuration, handler: handler), body)
}

/// The same with a server that admits each request from its head (a router's credentials).
func withServer<T: Sendable>(
    _ configuration: HTTPServer.Configuration = .init(), admission: @escaping HTTPAdmissionCheck,
    _ body: (HTTPServer) async throws -> T
) async throws -> T {
    try await running(try HTTPServer.start(configuration: configuration, admission: admission), body)
}

private func running<T: Sendable>(_ server: HTTPServer, _ body: (HTTPServer) async throws -> T) async throws -> T {
    do {
        let result = try await body(server)
        await server.shutdown(grace: .seconds(2))
        return result
    } catch {
        await server.shutdown(grace: .seconds(2))
        throw error
    }
}

/// Answers with the method, path and body it received.
@Sendable func echo(_ request: HTTPRequest) async -> HTTPResponse {
    .text("\(request.method) \(request.target.path) \(String(decoding: request.body, as: UTF8.self))")
}

/// A request with the usual headers.
func get(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(extra)\r\n"
}

/// A one-shot latch for async code: `wait()` suspends until `open()`.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if isOpen { continuation.resume() }
        }
    }
}

/// Polls `condition` every 5 ms for up to `seconds`; for state another thread changes.
func eventually(within seconds: Double = 5, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
