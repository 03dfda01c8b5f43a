import Foundation
import PayPanel
import Synchronization
import TestSupport
import Testing

/// Eight `paypanel payments create` processes at once on one database (new, so they also race
/// to create and migrate it): no SQLITE_BUSY may reach anyone.
@Suite struct ConcurrentCreateTests {
    static let processes = 8

    /// Runs `arguments(index)` in `count` processes started together.
    static func runTogether(_ count: Int, in directory: TemporaryDirectory, _ arguments: @escaping @Sendable (Int) -> [String]) -> [Result<CLIResult, any Error>] {
        Concurrently.run(count) { index in
            Result { try CLIRunner.run(arguments(index), in: directory, environment: ["PAYPANEL_NOW": "2026-11-29T12:00:00Z"]) }
        }
    }

    @Test func distinctKeysMakeEightIntents() throws {
        let directory = try TemporaryDirectory()
        let results = Self.runTogether(Self.processes, in: directory) { index in
            ["payments", "create", "--amount", "10", "--idempotency-key", "checkout-\(index)", "--json"]
        }
        var ids = Set<String>()
        for result in results {
            let run = try result.get()
            #expect(run.status == 0, "\(run)")
            #expect(run.stderr.isEmpty, "\(run.stderr)")
            ids.insert(try JSONParser().parse(run.stdout)["id"]?.stringValue ?? "")
        }
        #expect(ids.count == Self.processes)
        let listed = try JSONParser().parse(try CLIRunner.run(["payments", "list", "--json"], in: directory).stdout)
        #expect(Set(listed.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) == ids)
    }

    @Test func oneSharedKeyMakesOneIntentThatAllEightPrint() throws {
        let directory = try TemporaryDirectory()
        let results = Self.runTogether(Self.processes, in: directory) { _ in
            ["payments", "create", "--amount", "10", "--idempotency-key", "checkout-shared", "--json"]
        }
        var outputs = Set<String>()
        var replays = 0
        for result in results {
            let run = try result.get()
            #expect(run.status == 0, "\(run)")
            #expect(!run.stderr.contains("Error") && !run.stderr.contains("locked"), "\(run.stderr)")
            if run.stderr.contains("replayed the result") { replays += 1 }
            outputs.insert(run.stdout)
        }
        #expect(outputs.count == 1, "\(outputs)")
        #expect(replays == Self.processes - 1)
        let listed = try JSONParser().parse(try CLIRunner.run(["payments", "list", "--json"], in: directory).stdout)
        #expect(listed.arrayValue?.count == 1)
        #expect(listed.arrayValue?.first?["id"] == (try JSONParser().parse(outputs.first ?? ""))["id"])
    }
}
