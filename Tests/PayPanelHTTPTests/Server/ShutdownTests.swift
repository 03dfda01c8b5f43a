import Foundation
import TestSupport
import Glibc
import PayPanelHTTP
import Testing

/// Graceful shutdown: the listener closes, idle connections close, requests in flight finish
/// within the grace period, and whatever is left is closed when it ends.
@Suite struct ShutdownTests {
    @Test func inFlightRequestCompletesAndNewConnectionsAreRefused() async throws {
        let release = Gate()
        let entered = Gate()
        let handler: HTTPServer.Handler = { request in
            if request.target.path == "/slow" {
                entered.open()
                await release.wait()
            }
            return .text(request.target.path)
        }
        let server = try HTTPServer.start(handler: handler)
        let port = server.port
        let (busy, idle) = try await onThread { () throws -> (RawClient, RawClient) in
            let idle = try RawClient.connect(to: port)
            try idle.send(get("/warm"))
            _ = try idle.readResponse()
            // Its answer waits for the handler's task to run again on the cooperative pool,
            // which the whole suite can starve for longer than the client's usual 10 s.
            let busy = try RawClient.connect(to: port, timeout: Int(QueuedCalls.patience.components.seconds))
            try busy.send(get("/slow"))
            return (busy, idle)
        }
        await entered.wait()
        // The test's own release, never the grace, must end the slow request (the grace has a
        // test of its own, `graceEndsAStuckRequest…`): with the whole suite on two cores this
        // test has taken minutes, so a 10 s grace could end first.
        let shutdown = Task { await server.shutdown(grace: QueuedCalls.patience) }

        // The idle keep-alive connection is closed at once.
        #expect(try await onThread { try idle.waitForClose() })
        // New connections are refused once the listener is closed.
        let refused = try await onThread { () -> Bool in
            for _ in 0..<500 {
                do {
                    _ = try RawClient.connect(to: port, timeout: 1)
                    usleep(10_000)
                } catch ClientError.connectFailed(let code) where code == ECONNREFUSED {
                    return true
                }
            }
            return false
        }
        #expect(refused)
        #expect(!server.hasStopped)

        release.open()
        let (response, closed) = try await onThread { (try busy.readResponse(), try busy.waitForClose()) }
        #expect(response.text == "/slow")
        #expect(response.headers["Connection"] == "close")
        #expect(closed)
        await shutdown.value
        #expect(server.hasStopped)
        #expect(server.openConnectionCount == 0)
    }

    @Test func graceEndsAStuckRequestAndCancelsItsHandler() async throws {
        let cancelled = Gate()
        let entered = Gate()
        let handler: HTTPServer.Handler = { _ in
            entered.open()
            // Stuck until cancelled, with no deadline of its own: the server's grace must end it.
            // sleep is the test: the stuck handler.
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            cancelled.open()
            return .text("never sent")
        }
        let server = try HTTPServer.start(handler: handler)
        let port = server.port
        let client = try await onThread { () throws -> RawClient in
            let client = try RawClient.connect(to: port)
            try client.send(get("/stuck"))
            return client
        }
        await entered.wait()
        await server.shutdown(grace: .milliseconds(200))
        #expect(server.hasStopped)
        #expect(try await onThread { try client.waitForClose() })
        await cancelled.wait()
    }

    @Test func shutdownOfAnIdleServerReturnsAndCanBeRepeated() async throws {
        let server = try HTTPServer.start(handler: echo)
        await server.shutdown(grace: .seconds(5))
        await server.shutdown(grace: .seconds(5))
        await server.waitUntilStopped()
        #expect(server.hasStopped)
    }

    @Test func aBusyPortIsAStartError() async throws {
        let first = try HTTPServer.start(handler: echo)
        #expect(throws: HTTPServerError.self) {
            try HTTPServer.start(configuration: .init(port: first.port), handler: echo)
        }
        await first.shutdown(grace: .seconds(1))
    }

    @Test func descriptorsAreCloseOnExec() async throws {
        // The PayPanel tests spawn the CLI binary from this same process: a server descriptor
        // without FD_CLOEXEC would leak into the child. Checked: TCP sockets on the server's
        // port (listener and accepted), and epoll/eventfd descriptors that appeared with it.
        let before = Set(Self.descriptors().map(\.descriptor))
        // Idle connections kept for ten minutes: under the whole parallel suite this task can
        // wait more than the default 30 s for a thread between the response and the look at
        // the descriptors, and the server had closed the accepted socket by then (seen twice:
        // one socket found instead of two).
        var configuration = HTTPServer.Configuration()
        configuration.idleTimeout = .seconds(600)
        try await withServer(configuration) { server in
            let port = server.port
            let client = try await onThread { () throws -> RawClient in
                let client = try RawClient.connect(to: port)
                try client.send(get("/"))
                _ = try client.readResponse()
                return client
            }
            var sockets = 0
            var seen: [String] = []
            for (descriptor, target) in Self.descriptors() {
                seen.append("\(descriptor) \(target)")
                let isSocket = target.hasPrefix("socket:") && Self.localPort(of: descriptor) == port
                let isLoopDescriptor = !before.contains(descriptor) && (target.contains("eventpoll") || target.contains("eventfd"))
                guard isSocket || isLoopDescriptor else { continue }
                let flags = fcntl(descriptor, F_GETFD)
                guard flags >= 0 else { continue }  // closed meanwhile by a parallel test
                #expect(flags & FD_CLOEXEC != 0, "\(descriptor) \(target)")
                if isSocket { sockets += 1 }
            }
            // The listener and the accepted socket. The loop's epoll and eventfd are checked when
            // their numbers are new; under the parallel suite a number another test just closed
            // can be reused for them, and then they cannot be told from that test's.
            #expect(sockets >= 2, "server port \(port); descriptors: \(seen)")
            withExtendedLifetime(client) {}
        }
    }

    private static func descriptors() -> [(descriptor: Int32, target: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { entry in
            guard let descriptor = Int32(entry),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
            else { return nil }
            return (descriptor, target)
        }
    }

    private static func localPort(of descriptor: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default:
            return nil
        }
    }
}
