import Foundation
import PayPanel

/// `paypanel bench token [--count N] [--json]`
struct BenchTokenCommand: CLICommand {
    static let count = OptionSpec.value("--count", "n", help: "Operations per measurement (default 2000).")

    static let spec = CommandSpec(
        name: "token",
        abstract: "Measure Apple Pay token decryption against the raw OpenSSL ECDH rate.",
        discussion: """
            Seals EC_v1 tokens to the test merchant, then times, one after the other on one thread: \
            the raw OpenSSL ECDH P-256 derive (the ceiling: no token decrypts faster), decryption \
            alone (parse, key import, ECDH, KDF, AES-GCM, plaintext), and verification plus \
            decryption. Build with 'swift build -c release' first: debug builds measure the debugger.
            """,
        options: [count, CommonOptions.json])

    let iterations: Int
    let json: Bool

    init(arguments: ParsedArguments) throws {
        iterations = try arguments.integer(Self.count.name, in: 1...10_000_000) ?? 2000
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let progress = Progress(console: console)
        progress.show("sealing tokens")
        let workload = try TokenBenchmarkWorkload(distinctTokens: min(iterations, 64), at: Date())
        progress.show("warming up")
        for index in 0..<min(50, iterations) {
            try workload.deriveSharedSecret(index)
            try workload.decrypt(index)
            try workload.verifyAndDecrypt(index)
        }
        // Interleaved rounds, so a change in the machine's load during the run (other builds,
        // CPU frequency) affects all three figures alike instead of skewing their ratios.
        let rounds = min(10, iterations)
        var seconds = (ecdh: 0.0, decrypt: 0.0, verifyDecrypt: 0.0)
        var done = 0
        for round in 0..<rounds {
            let chunk = iterations / rounds + (round < iterations % rounds ? 1 : 0)
            progress.show("round \(round + 1) of \(rounds)")
            seconds.ecdh += try time(chunk, from: done, workload.deriveSharedSecret)
            seconds.decrypt += try time(chunk, from: done, workload.decrypt)
            seconds.verifyDecrypt += try time(chunk, from: done, workload.verifyAndDecrypt)
            done += chunk
        }
        let ecdh = Double(iterations) / seconds.ecdh
        let decrypt = Double(iterations) / seconds.decrypt
        let verifyDecrypt = Double(iterations) / seconds.verifyDecrypt
        progress.clear()
        let result = TokenBenchmarkResult(count: iterations, ecdhPerSecond: ecdh, decryptPerSecond: decrypt, verifyDecryptPerSecond: verifyDecrypt)
        if json {
            console.printJSON(result.json)
        } else {
            console.print("Apple Pay token benchmark: \(iterations) operations each, one thread, \(workload.tokenByteCount)-byte EC_v1 tokens")
            console.print("  raw ECDH P-256 derive   \(Self.rate(ecdh))/s  (ceiling)")
            console.print("  EC_v1 decrypt           \(Self.rate(decrypt))/s  \(Self.percent(result.decryptRatio)) of ECDH")
            console.print("  EC_v1 verify + decrypt  \(Self.rate(verifyDecrypt))/s  \(Self.percent(result.verifyDecryptRatio)) of ECDH")
        }
        return .success
    }

    /// Seconds taken by `count` calls of `operation`.
    private func time(_ count: Int, from first: Int, _ operation: (Int) throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for index in first..<first + count { try operation(index) }
        let elapsed = start.duration(to: clock.now)
        return max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 1e-9)
    }

    private static func rate(_ value: Double) -> String {
        let text = String(Int(value.rounded()))
        return String(repeating: " ", count: max(0, 7 - text.count)) + text
    }

    private static func percent(_ ratio: Double) -> String {
        "\(Int((ratio * 100).rounded()))%"
    }
}

/// One status line on standard error, rewritten in place; only on a terminal.
private struct Progress {
    let console: Console

    func show(_ text: String) {
        guard console.stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    func clear() {
        guard console.stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
