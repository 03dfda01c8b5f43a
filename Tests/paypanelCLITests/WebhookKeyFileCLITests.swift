import Foundation
import PayPanel
import Testing
import TestSupport

/// Where the webhook commands find the key that seals endpoint secrets, on SQLite: beside the
/// database by default (created on first use), or a given file (`--webhook-key-file`,
/// `$PAYPANEL_WEBHOOK_KEY_FILE`) that is only read, never created. And the device commands, which
/// open their store through the store factory.
@Suite struct WebhookKeyFileCLITests {
    @Test func theDefaultKeyFileIsMadeBesideTheDatabaseOnFirstUse() throws {
        let directory = try TemporaryDirectory("paypanel-webhook-key")
        let added = try CLIRunner.run(["webhooks", "add", "https://merchant.example/hooks", "--db", "p.sqlite"], in: directory)
        #expect(added.status == 0, "\(added)")
        let key = try #require(FileManager.default.contents(atPath: directory.file("p.sqlite.webhook-key")))
        #expect(key.count == 32)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("p.sqlite.webhook-key"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let listed = try CLIRunner.run(["webhooks", "list", "--db", "p.sqlite"], in: directory)
        #expect(listed.status == 0 && listed.stdout.contains("https://merchant.example/hooks"), "\(listed)")
    }

    @Test func aGivenKeyFileIsReadAndNeverCreated() throws {
        let directory = try TemporaryDirectory("paypanel-webhook-key")
        let missing = try CLIRunner.run(
            ["webhooks", "add", "https://merchant.example/hooks", "--db", "p.sqlite", "--webhook-key-file", "absent.key"], in: directory)
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.stderr.contains("cannot read the webhook key file absent.key") && missing.stderr.contains("head -c 32 /dev/urandom"), "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("absent.key")))

        #expect(FileManager.default.createFile(atPath: directory.file("shared.key"), contents: Data(repeating: 7, count: 32)))
        let added = try CLIRunner.run(
            ["webhooks", "add", "https://merchant.example/hooks", "--db", "p.sqlite", "--json"], in: directory,
            environment: ["PAYPANEL_WEBHOOK_KEY_FILE": "shared.key"])
        #expect(added.status == 0, "\(added)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("p.sqlite.webhook-key")), "the given key is used, none is made")
        // The endpoint's secret opens with the given key only: rotating it needs the same file.
        let id = try #require(try JSONParser().parse(Array(added.stdout.utf8))["id"]?.stringValue)
        let rotated = try CLIRunner.run(["webhooks", "rotate-secret", id, "--db", "p.sqlite", "--webhook-key-file", "shared.key"], in: directory)
        #expect(rotated.status == 0 && rotated.stdout.contains("secret version 2"), "\(rotated)")
    }

    @Test func devicesAreRegisteredOnceAndListed() throws {
        let directory = try TemporaryDirectory("paypanel-devices-cli")
        let token = String(repeating: "cd", count: 32)
        let first = try CLIRunner.run(["devices", "add", "--token", token, "--topic", "com.example.app", "--db", "p.sqlite", "--json"], in: directory)
        #expect(first.status == 0, "\(first)")
        let again = try CLIRunner.run(["devices", "add", "--token", token, "--topic", "com.example.app", "--db", "p.sqlite", "--json"], in: directory)
        let id = try #require(try JSONParser().parse(Array(first.stdout.utf8))["id"]?.stringValue)
        #expect(try JSONParser().parse(Array(again.stdout.utf8))["id"]?.stringValue == id)
        let listed = try CLIRunner.run(["devices", "list", "--db", "p.sqlite"], in: directory)
        #expect(listed.status == 0 && listed.stdoutLines.count == 1 && listed.stdout.contains(id), "\(listed)")
    }
}
