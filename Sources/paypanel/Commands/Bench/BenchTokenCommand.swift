import Foundation
import PayPanel
import PayPanelReliability

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
            decryption, in ten interleaved rounds; prints the medians. Build with \
            'swift build -c release' first: a debug build measures Swift's debug code.
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
        let progress = ProgressLine(console: console)
        progress.show("sealing tokens")
        let workload = try TokenBenchmarkWorkload(distinctTokens: min(iterations, 64), at: Date())
        progress.show("warming up")
        for index in 0..<min(50, iterations) {
            try workload.deriveSharedSecret(index)
            try workload.decrypt(index)
            try workload.verifyAndDecrypt(index)
        }
        // Interleaved rounds: each round times a chunk of all three, back to back, so a change
        // in the machine's load (other builds, CPU frequency) hits them alike. Each figure is
        // the median over the rounds, and the ratio the median of the per-round ratios, so one
        // disturbed round does not move the result.
        let rounds = min(10, iterations)
        var rates: [(ecdh: Double, decrypt: Double, verifyDecrypt: Double)] = []
        var done = 0
        for round in 0..<rounds {
            let chunk = iterations / rounds + (round < iterations % rounds ? 1 : 0)
            progress.show("round \(round + 1) of \(rounds)")
            let ecdh = Double(chunk) / (try time(chunk, from: done, workload.deriveSharedSecret))
            let decrypt = Double(chunk) / (try time(chunk, from: done, workload.decrypt))
            let verifyDecrypt = Double(chunk) / (try time(chunk, from: done, workload.verifyAndDecrypt))
            rates.append((ecdh, decrypt, verifyDecrypt))
            done += chunk
        }
        progress.clear()
        let result = TokenBenchmarkResult(
            count: iterations, ecdhPerSecond: BenchmarkStatistics.median(rates.map(\.ecdh)), decryptPerSecond: BenchmarkStatistics.median(rates.map(\.decrypt)),
            verifyDecryptPerSecond: BenchmarkStatistics.median(rates.map(\.verifyDecrypt)),
            decryptRatio: BenchmarkStatistics.median(rates.map { $0.decrypt / $0.ecdh }),
            verifyDecryptRatio: BenchmarkStatistics.median(rates.map { $0.verifyDecrypt / $0.ecdh }))
        if json {
            console.printJSON(result.json)
        } else {
            console.print("Apple Pay token benchmark: \(iterations) operations each, one thread, \(workload.tokenByteCount)-byte EC_v1 tokens")
            console.print("  raw ECDH P-256 derive   \(Self.rate(result.ecdhPerSecond))/s  (ceiling)")
            console.print("  EC_v1 decrypt           \(Self.rate(result.decryptPerSecond))/s  \(Self.percent(result.decryptRatio)) of ECDH")
            console.print("  EC_v1 verify + decrypt  \(Self.rate(result.verifyDecryptPerSecond))/s  \(Self.percent(result.verifyDecryptRatio)) of ECDH")
            console.print("  (medians of \(rounds) interleaved rounds; target: decrypt ≥ 80% of ECDH)")
        }
        return .success
    }

    /// Seconds taken by `count` calls of `operation`.
    private func time(_ count: Int, from first: Int, _ operation: (Int) throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        for index in first..<first + count { try operation(index) }
        return BenchmarkStatistics.seconds(since: start)
    }

    private static func rate(_ value: Double) -> String {
        let text = String(Int(value.rounded()))
        return String(repeating: " ", count: max(0, 7 - text.count)) + text
    }

    private static func percent(_ ratio: Double) -> String {
        "\(Int((ratio * 100).rounded()))%"
    }
}
