import Foundation
import PayPanel

/// How the soaks with the processor in its own process (`soak processor`, `soak chaos`) start
/// their two servers on one pair of files: `paypanel processor serve` on the ledger and
/// `paypanel serve --processor http://127.0.0.1:PORT` on the payments database, each child's
/// output in numbered files in the run's directory (`processor-3.err`, `serve-7.out`).
///
/// Only the command lines: which process is running, killed or restarted is the soak's own
/// business (one thread in the processor crash soak, a killer thread in the chaos soak).
struct SoakServerLauncher: Sendable {
    /// The `paypanel` binary both servers run.
    let executable: String
    /// Where the files and the servers' output go (also their working directory and HOME).
    let directory: String
    let databasePath: String
    let ledgerPath: String
    /// The secret key serve uses at the processor (its own account there).
    let processorKey: String
    /// serve's `--processor-timeout` (seconds).
    let processorTimeout: String
    /// processor serve's `--hold` (seconds): how long TIMEOUT_THEN_* holds a connection.
    let hold: String
    /// processor serve's fixed clock (`--now`), or nil for the real clock: webhooks need the
    /// real one, since serve (on the real clock) refuses an event whose timestamp is 5 minutes off.
    let processorNow: String?
    /// Added to serve's command line (the chaos soak's `--public-url auto`).
    var extraServeArguments: [String] = []

    /// serve's reconciliation schedule in the soaks: an authorization lost with a killed
    /// processor fails after 10 s, not 5 min, and unknown outcomes are looked up after 1, 2, then
    /// every 5 s; a soak must not wait minutes for what the standard schedule does in hours.
    /// The audits replay the histories with the same policy.
    static let policy = PaymentPolicy(reconciliationGrace: 10, reconciliationDelays: [1, 2, 5])

    static var reconciliationArguments: [String] {
        ["--reconciliation-grace", String(Int(policy.reconciliationGrace)),
         "--reconciliation-delays", policy.reconciliationDelays.map { String(Int($0)) }.joined(separator: ",")]
    }

    private var environment: [String: String] {
        ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory, "NO_COLOR": "1"]
    }

    /// processor serve on `port` (0: any free one); `generation` numbers its output files.
    func startProcessor(port: Int, generation: Int) throws -> ListeningProcess {
        try ListeningProcess(
            executable,
            ["processor", "serve", "--port", String(port), "--processor-db", ledgerPath, "--hold", hold]
                + (processorNow.map { ["--now", $0] } ?? []),
            environment: environment, outputPrefix: directory + "/processor-\(generation)", workingDirectory: directory)
    }

    /// serve on `port` (0: any free one) pointing at processor serve's `processorPort`, with the
    /// fault point `fault` armed (`PAYPANEL_FAULT`) or none.
    func startServe(port: Int, processorPort: Int, fault: String?, generation: Int) throws -> ListeningProcess {
        var environment = environment
        if let fault { environment["PAYPANEL_FAULT"] = fault }
        return try ListeningProcess(
            executable,
            ["serve", "--port", String(port), "--db", databasePath, "--worker-interval", "200",
             "--processor", "http://127.0.0.1:\(processorPort)", "--processor-key", processorKey,
             "--processor-timeout", processorTimeout] + Self.reconciliationArguments + extraServeArguments,
            environment: environment, outputPrefix: directory + "/serve-\(generation)", workingDirectory: directory)
    }
}
