import Foundation
import TestSupport
import Testing

/// `paypanel devices add|list` and `notify send`'s refusals before anything is sent.
@Suite struct DevicesAndSendCLITests {
    static let token = String(repeating: "1b", count: 32)

    @Test func addedDevicesAreListedAndTheSameTokenGivesTheSameDevice() throws {
        let directory = try TemporaryDirectory()
        let add = ["devices", "add", "--token", Self.token, "--topic", "com.example.app", "--environment", "development", "--json"]
        let first = try CLIRunner.run(add, in: directory)
        #expect(first.status == 0, "\(first)")
        let second = try CLIRunner.run(add, in: directory)
        #expect(second.stdout == first.stdout)
        let list = try CLIRunner.run(["devices", "list"], in: directory)
        #expect(list.status == 0)
        #expect(list.stdout.contains("active  com.example.app  development  1b1b1b1b…1b1b"), "\(list)")
        let bad = try CLIRunner.run(["devices", "add", "--token", "nothex", "--topic", "com.example.app"], in: directory)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("hex"))
    }

    @Test func sendRefusesAWorldReadableKeyAndHalfGivenCredentials() throws {
        let directory = try TemporaryDirectory()
        let key = directory.file("AuthKey.p8")
        try FileManager.default.copyItem(atPath: RepositoryPaths.fixture("apns/AuthKey_TESTKEY123.p8"), toPath: key)
        chmod(key, 0o644)
        let payload = try directory.write("push.json", #"{"aps":{"alert":{"title":"Hi","body":"There"}}}"#)
        let base = ["notify", "send", payload, "--device", Self.token, "--apns-topic", "com.example.app", "--apns-url", "https://127.0.0.1:1"]
        let readable = try CLIRunner.run(base + ["--apns-key-file", key, "--apns-key-id", "TESTKEY123", "--apns-team-id", "TEAM123456"], in: directory)
        #expect(readable.status == 1)
        #expect(readable.stderr.contains("chmod 600"), "\(readable)")
        #expect(!readable.stderr.contains("PRIVATE KEY"))
        let half = try CLIRunner.run(base + ["--apns-key-file", key], in: directory)
        #expect(half.status == 64, "\(half)")
        #expect(half.stderr.contains("--apns-key-id"))
        chmod(key, 0o600)
        let unreachable = try CLIRunner.run(base + ["--apns-key-file", key, "--apns-key-id", "TESTKEY123", "--apns-team-id", "TEAM123456"], in: directory)
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("no answer from APNs at 127.0.0.1"), "\(unreachable)")
        #expect(!unreachable.stderr.contains(Self.token))
    }
}
