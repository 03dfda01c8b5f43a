import Foundation
import PayPanelHTTP
import PayPanelReliability
import Synchronization
import Testing

/// `bench processor` reads its `mock-processor` thread's CPU time by the thread's name
/// (`ProcCPUTime`): the name must find the thread, even one whose name holds the `) ` that
/// ends the name field in /proc's stat line, and a name no thread has must count nothing.
@Suite struct ProcCPUTimeTests {
    @Test("A busy thread's CPU time is found by its name, and the process's time includes it")
    func aBusyThreadIsFoundByItsName() async throws {
        let name = "cpu) (t \(Int.random(in: 1000...9999))"  // 13 bytes: the kernel keeps 15
        let stop = Atomic<Bool>(false)
        let ended = Atomic<Bool>(false)
        let thread = Thread {
            OwnThread.nameCurrent(name)
            var spins = 0
            while !stop.load(ordering: .relaxed) { spins &+= 1 }
            ended.store(true, ordering: .releasing)
        }
        thread.start()
        defer { stop.store(true, ordering: .relaxed) }

        // Spin until the kernel has charged it a tick (10 ms at 100 Hz); fail if it never does.
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        var charged = 0.0
        while charged == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            charged = ProcCPUTime.threadsNamed(name)
        }
        #expect(charged > 0, "no CPU time found for the thread named \(name)")
        #expect(ProcCPUTime.thisProcess() >= charged, "the process's time counts every thread's")
        #expect(ProcCPUTime.threadsNamed("no such thread") == 0)
        #expect(ProcCPUTime.seconds(statFile: "/proc/self/task/0/stat") == nil, "a file that cannot be read is nil, not 0")

        stop.store(true, ordering: .relaxed)
        while !ended.load(ordering: .acquiring), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
    }
}
