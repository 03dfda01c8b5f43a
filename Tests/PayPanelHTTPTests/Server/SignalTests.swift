import Glibc
import PayPanelHTTP
import Testing

/// The termination-signal helper, with SIGUSR1/SIGUSR2 standing in for SIGTERM/SIGINT so
/// the test runner's own handling of those is left alone.
@Suite(.serialized) struct SignalTests {
    @Test func waitReturnsTheSignalReceived() async {
        let signals = TerminationSignals([SIGUSR1])
        kill(getpid(), SIGUSR1)
        #expect(await signals.wait() == SIGUSR1)
        #expect(signals.hasReceivedSignal)
        // Already received: returns at once.
        #expect(await signals.wait() == SIGUSR1)
        signals.cancel()
    }

    @Test func shutdownOnTerminationStopsTheServer() async throws {
        let signals = TerminationSignals([SIGUSR2])
        let server = try HTTPServer.start(handler: echo)
        let stopper = Task { await server.shutdownOnTermination(signals, grace: .seconds(1)) }
        kill(getpid(), SIGUSR2)
        #expect(await stopper.value == SIGUSR2)
        #expect(server.hasStopped)
        signals.cancel()
    }
}
