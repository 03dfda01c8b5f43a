import Foundation
import Glibc
import PayPanelReliability
import TestSupport

/// The mock APNs of `fixtures/apns/mock_apns.py` (Python, the `h2` library from PyPI): a real
/// HTTP/2 server over TLS that nobody here wrote, with a test CA made by `openssl` for this run.
///
/// URLSession on Linux trusts only the system CA bundle, so whatever talks to it runs through
/// `launcher`: in a private mount namespace (`unshare -m`) where a bundle holding the test CA is
/// bind-mounted over the system's. That needs root; `skipReason` says why a test cannot run.
final class MockAPNs: @unchecked Sendable {
    let directory: TemporaryDirectory
    let process: SpawnedProcess
    let port: Int
    let keyFile: String
    static let keyID = "TESTKEY123"
    static let teamID = "TEAM123456"

    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    /// The Python with `h2`: `$PAYPANEL_TEST_PYTHON` (what .ci/run sets up), else `python3`.
    static var python: String { ProcessInfo.processInfo.environment["PAYPANEL_TEST_PYTHON"] ?? "/usr/bin/env" }
    static var pythonArguments: [String] { ProcessInfo.processInfo.environment["PAYPANEL_TEST_PYTHON"] == nil ? ["python3"] : [] }

    /// Nil when the test can run here; otherwise why not.
    static let skipReason: String? = {
        guard getuid() == 0 else { return "not root: the private CA bundle needs a mount namespace (unshare -m)" }
        for tool in ["/usr/bin/unshare", "/usr/bin/openssl"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing"
        }
        guard FileManager.default.fileExists(atPath: systemBundle) else { return "no system CA bundle at \(systemBundle)" }
        guard (try? run(python, pythonArguments + ["-c", "import h2"])) == 0 else {
            return "no Python with the h2 package (set PAYPANEL_TEST_PYTHON; .ci/run makes one)"
        }
        guard (try? run("/usr/bin/unshare", ["-m", "/bin/true"])) == 0 else { return "unshare -m is not permitted here" }
        return nil
    }()

    /// Starts the server. `rules`: device token → (status, reason); `goawayAfter`: GOAWAY and
    /// close after every n requests on a connection; `resetReused`: one answer per connection,
    /// and a reset (TCP RST) under the next request on it; `dropAt`: the n-th push gets no answer,
    /// only a GOAWAY that says it was not processed; `media`: a directory served at /media/.
    init(rules: [String: (Int, String)] = [:], goawayAfter: Int = 0, resetReused: Bool = false, dropAt: Int = 0, media: String? = nil) throws {
        directory = try TemporaryDirectory("paypanel-mock-apns")
        let d = directory
        try Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", d.file("ca.key"),
                          "-out", d.file("ca.pem"), "-days", "2", "-subj", "/CN=PayPanel Test CA",
                          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"])
        try Self.openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", d.file("server.key"),
                          "-out", d.file("server.csr"), "-subj", "/CN=localhost"])
        try d.write("ext.cnf", "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        try Self.openssl(["x509", "-req", "-in", d.file("server.csr"), "-CA", d.file("ca.pem"), "-CAkey", d.file("ca.key"),
                          "-CAcreateserial", "-out", d.file("server.pem"), "-days", "2", "-extfile", d.file("ext.cnf")])
        keyFile = d.file("AuthKey_\(Self.keyID).p8")
        try FileManager.default.copyItem(atPath: RepositoryPaths.fixture("apns/AuthKey_TESTKEY123.p8"), toPath: keyFile)
        chmod(keyFile, 0o600)
        try Self.openssl(["pkey", "-in", keyFile, "-pubout", "-out", d.file("public.pem")])
        let system = try Data(contentsOf: URL(fileURLWithPath: Self.systemBundle))
        try (system + Data(contentsOf: URL(fileURLWithPath: d.file("ca.pem")))).write(to: URL(fileURLWithPath: d.file("bundle.pem")))
        let rulesJSON = "{" + rules.map { "\"\($0.key)\": [\($0.value.0), \"\($0.value.1)\"]" }.joined(separator: ", ") + "}"
        try d.write("rules.json", rulesJSON)
        _ = FileManager.default.createFile(atPath: d.file("log.jsonl"), contents: nil)
        _ = FileManager.default.createFile(atPath: d.file("port.txt"), contents: nil)

        var arguments = Self.pythonArguments + [
            RepositoryPaths.fixture("apns/mock_apns.py"), "--cert", d.file("server.pem"), "--key", d.file("server.key"),
            "--public-key", d.file("public.pem"), "--key-id", Self.keyID, "--team-id", Self.teamID, "--log", d.file("log.jsonl"),
            "--rules", d.file("rules.json"), "--goaway-after", String(goawayAfter), "--drop-at", String(dropAt),
        ]
        if let media { arguments += ["--media", media] }
        if resetReused { arguments.append("--reset-reused") }
        process = try SpawnedProcess(Self.python, arguments, environment: ProcessInfo.processInfo.environment, stdout: .file(d.file("port.txt")))
        guard let found = process.waitForOutput(in: d.file("port.txt"), timeout: .seconds(60), {
            $0.hasSuffix("\n") ? Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) : nil  // a whole line, not half a number
        }) else {
            process.crash()
            throw ServerStartError(description: "the mock APNs did not print its port")
        }
        port = found
    }

    deinit { stop() }

    func stop() { process.crash() }

    var url: String { "https://localhost:\(port)" }

    /// Runs a program in a mount namespace where the test CA is trusted.
    var launcher: [String] {
        ["/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount --bind \"$0\" \(Self.systemBundle) && exec \"$@\"", directory.file("bundle.pem")]
    }

    /// The `--apns-*` options for this server.
    func options(topic: String = "com.example.PayPanelDemo") -> [String] {
        ["--apns-key-file", keyFile, "--apns-key-id", Self.keyID, "--apns-team-id", Self.teamID, "--apns-topic", topic,
         "--apns-environment", "development", "--apns-url", url]
    }

    /// Every request so far, as the server logged it.
    var log: [[String: Any]] {
        let text = (try? String(contentsOfFile: directory.file("log.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Runs `paypanel ARGS` through `launcher` (or not); exit status, stdout, stderr.
    func paypanel(_ arguments: [String], trusted: Bool = true, in directory: TemporaryDirectory) throws -> (Int32, String, String) {
        let binary = CLIRunner.binary.path(percentEncoded: false)
        let (program, all) = trusted ? (launcher[0], Array(launcher.dropFirst()) + [binary] + arguments) : (binary, arguments)
        let result = try ChildProcess.start(
            program, all, environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HOME": directory.path], directory: directory.path,
            workingDirectory: directory.path
        ).wait(poll: .milliseconds(5))
        return (result.status, result.stdout, result.stderr)
    }

    private static func openssl(_ arguments: [String]) throws {
        guard try run("/usr/bin/openssl", arguments) == 0 else { throw ServerStartError(description: "openssl \(arguments.first ?? "") failed") }
    }

    @discardableResult
    private static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        try ChildProcess.run(
            program, arguments, environment: ProcessInfo.processInfo.environment, directory: FileManager.default.temporaryDirectory.path
        ).status
    }
}
