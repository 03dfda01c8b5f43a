import Foundation
import Glibc
import Testing
import TestSupport

/// A client without a credential cannot make `paypanel serve` buffer bodies: it is answered 401
/// after its head, and whatever body it sends is read and discarded by the lingering close,
/// never held. Measured on the server's own process (peak resident, VmHWM, from /proc).
///
/// 300 connections, as the report that found it (which took the server from 46 to 353 MB), not
/// 1,000: the client ends live in the test process, whose descriptors Foundation's `Process`
/// lists while other tests start processes (IdleConnectionMemoryTests says why that matters).
/// `paypanel bench serve` measures 1,000 (docs/http-core.md).
@Suite struct AnonymousBodyTests {
    @Test func threeHundredAnonymousMegabyteBodiesAreNeverBuffered() async throws {
        let count = 300
        try #require(ProcessLimits.raiseDescriptorLimit(toAtLeast: count + 256), "the descriptor limit is too low for this test")
        let server = try await ServerProcess.start()
        let port = server.port
        let atStart = ProcessLimits.memory(of: server.pid, "VmRSS")
        // Every body but its last byte: a server that buffered bodies before checking the key
        // would now hold all 300 of them, waiting for the rest.
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 1024 * 1024 - 1)
        let clients = try await onThread {
            try (0..<count).map { _ in
                let client = try RawClient.connect(to: port, timeout: 60)
                try client.send("POST /v1/payment_intents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n")
                // The server may have closed already (it answered and stopped discarding).
                try? client.send(body)
                return client
            }
        }
        let peak = ProcessLimits.memory(of: server.pid, "VmHWM")
        let answers = try await onThread { try clients.map { try $0.readResponse() } }
        #expect(answers.allSatisfy { $0.status == 401 }, "\(Set(answers.map(\.status)))")
        #expect(answers.allSatisfy { $0.headers["Connection"] == "close" })
        print("paypanel serve after \(count) anonymous 1 MiB bodies: resident \(atStart >> 20) MiB at start, peak \(peak >> 20) MiB")
        #expect(atStart > 0 && peak > 0)
        // Buffering would add at least 300 MiB (every body but its last byte). Reading and
        // discarding costs a read buffer per busy connection plus glibc's per-thread arenas:
        // 4 MiB on a quiet machine (43 to 47), 34 MiB in a CI run with a hundred other processes. The
        // bound is a quarter of what buffering would take.
        let bound = count * 1024 * 1024 / 4
        #expect(peak - atStart < bound, "grew \((peak - atStart) >> 20) MiB (bound \(bound >> 20) MiB): bodies were buffered")
        // Under AddressSanitizer the heap carries shadow memory (IdleConnectionMemoryTests):
        // the absolute bound speaks of the ordinary build.
        if !Sanitizers.areActive {
            #expect(peak < 128 * 1024 * 1024, "peak resident \(peak >> 20) MiB")
        }
        #expect(try await server.request("GET", "/healthz", key: "").status == 200)
        #expect(await server.terminate() == 0)
    }
}
