import Foundation
import Glibc
import PayPanel
import Synchronization

/// The chaos soak's two servers, shared by the clients (who only read serve's port) and the
/// killer thread (which SIGKILLs one and restarts it). Every start, kill and restart happens
/// under one lock, so a client asking for the port while serve restarts waits for the new
/// one instead of reading a half-replaced pair.
///
/// A killed server comes back on the same files and on its **old port** (both listening
/// sockets have `SO_REUSEADDR`): the clients keep their URL and serve keeps processor serve's,
/// as with a real restart; while it is down they meet "connection refused". When the system
/// does not give a port back, the server takes a new one (and serve is restarted to point at a
/// moved processor), counted apart.
final class ChaosServers: Sendable {
    struct Counts: Sendable {
        var serveKills = 0
        var processorKills = 0
        var serveRestarts = 0
        var processorRestarts = 0
        /// Restarts on the old port (the rest took a new one).
        var servePortReused = 0
        var processorPortReused = 0
        /// Exits nobody asked for, and stops that did not end with status 0.
        var findings: [String] = []
    }

    private struct State: @unchecked Sendable {
        // @unchecked: ListeningProcess is a class used only under the lock.
        var serve: ListeningProcess?
        var processor: ListeningProcess?
        var serveGeneration = 0
        var processorGeneration = 0
        var counts = Counts()
    }

    private let launcher: SoakServerLauncher
    private let state = Mutex(State())

    init(launcher: SoakServerLauncher) {
        self.launcher = launcher
    }

    deinit {
        state.withLock { state in
            state.serve?.crash()
            state.processor?.crash()
        }
    }

    /// Starts processor serve, then serve (which registers for its webhooks at start), each on
    /// a free port.
    func start() throws {
        try state.withLock { state in
            try startProcessor(&state, port: 0)
            try startServe(&state, port: 0)
        }
    }

    /// serve's port now (blocks while a restart is under way).
    var servePort: Int { state.withLock { $0.serve?.port ?? 0 } }

    /// processor serve's port now.
    var processorPort: Int { state.withLock { $0.processor?.port ?? 0 } }

    var counts: Counts { state.withLock { $0.counts } }

    /// SIGKILLs `target` (as a crash would: no shutdown, requests in flight cut) and starts it
    /// again on the same files and port.
    func kill(_ target: KillTarget) throws {
        try state.withLock { state in
            try reviveUnasked(&state)
            switch target {
            case .serve:
                let port = state.serve?.port ?? 0
                state.serve?.crash()
                state.counts.serveKills += 1
                try startServe(&state, port: port)
            case .processor:
                let port = state.processor?.port ?? 0
                state.processor?.crash()
                state.counts.processorKills += 1
                try startProcessor(&state, port: port)
                if state.processor?.port != port { try restartServeGracefully(&state) }
            }
        }
    }

    /// Stops both with SIGTERM (each must exit 0: a clean shutdown) and starts them again,
    /// processor serve first: the end of the kills, before the worker settles what they left.
    func restartCleanly() throws {
        try state.withLock { state in
            try reviveUnasked(&state)
            let servePort = state.serve?.port ?? 0
            let processorPort = state.processor?.port ?? 0
            stop(&state)
            try startProcessor(&state, port: processorPort)
            try startServe(&state, port: servePort)
        }
    }

    /// Stops both with SIGTERM (serve first: it stops calling the processor), each expected to
    /// exit 0.
    func stopBoth() {
        state.withLock { stop(&$0) }
    }

    /// Restarts a server that ended without being asked to (a finding, with its last output).
    func reviveIfNeeded() throws {
        try state.withLock { try reviveUnasked(&$0) }
    }

    // MARK: - Under the lock

    private func stop(_ state: inout State) {
        for (name, server) in [("serve", state.serve), ("processor serve", state.processor)] {
            guard let server else { continue }
            let status = server.stop()
            if status != 0 { state.counts.findings.append("\(name) exited with status \(status) on SIGTERM: \(server.stderr.suffix(400))") }
        }
        state.serve = nil
        state.processor = nil
    }

    private func reviveUnasked(_ state: inout State) throws {
        if let processor = state.processor, !processor.isRunning {
            state.counts.findings.append("processor serve ended by itself (\(processor.process.termination.map(String.init(describing:)) ?? "?")): \(processor.stderr.suffix(400))")
            try startProcessor(&state, port: processor.port)
        }
        if let serve = state.serve, !serve.isRunning {
            state.counts.findings.append("serve ended by itself (\(serve.process.termination.map(String.init(describing:)) ?? "?")): \(serve.stderr.suffix(400))")
            try startServe(&state, port: serve.port)
        }
    }

    private func startProcessor(_ state: inout State, port: Int) throws {
        let restart = state.processor != nil
        if port != 0, let started = try? launcher.startProcessor(port: port, generation: state.processorGeneration + 1) {
            state.processorGeneration += 1
            state.processor = started
            if restart { state.counts.processorPortReused += 1 }
        } else {
            // A failed try on the old port keeps its output files: the next number is past them.
            state.processorGeneration += port != 0 ? 2 : 1
            state.processor = try launcher.startProcessor(port: 0, generation: state.processorGeneration)
        }
        if restart { state.counts.processorRestarts += 1 }
    }

    private func startServe(_ state: inout State, port: Int) throws {
        let restart = state.serve != nil
        let processorPort = state.processor?.port ?? 0
        if port != 0, let started = try? launcher.startServe(port: port, processorPort: processorPort, fault: nil, generation: state.serveGeneration + 1) {
            state.serveGeneration += 1
            state.serve = started
            if restart { state.counts.servePortReused += 1 }
        } else {
            state.serveGeneration += port != 0 ? 2 : 1
            state.serve = try launcher.startServe(port: 0, processorPort: processorPort, fault: nil, generation: state.serveGeneration)
        }
        if restart { state.counts.serveRestarts += 1 }
    }

    /// serve again, to point at processor serve's new port.
    private func restartServeGracefully(_ state: inout State) throws {
        let port = state.serve?.port ?? 0
        if let serve = state.serve {
            let status = serve.stop()
            if status != 0 { state.counts.findings.append("serve exited with status \(status) on SIGTERM: \(serve.stderr.suffix(400))") }
        }
        try startServe(&state, port: port)
    }
}
