import Foundation
import Synchronization
import Testing
import TestSupport

@Suite struct NotifyScheduleCLITests {
    private let now = "2026-11-29T12:00:00Z"

    private func run(_ arguments: [String], at time: String? = nil, in directory: TemporaryDirectory) throws -> CLIResult {
        try CLIRunner.run(["notify"] + arguments + ["--db", directory.file("paypanel.sqlite"), "--now", time ?? now], in: directory)
    }

    @Test func aNotificationIsDeliveredOnceWhenDue() throws {
        let directory = try TemporaryDirectory()
        let scheduled = try run(["schedule", "--title", "Your order", "--body", "Ready for pickup", "--in", "5"], in: directory)
        #expect(scheduled.status == 0, "\(scheduled)")
        #expect(scheduled.stdout == "scheduled notification 1 for 2026-11-29T12:00:05Z\n")

        let early = try run(["deliver"], at: "2026-11-29T12:00:04.999Z", in: directory)
        #expect(early.stdout == "nothing due at 2026-11-29T12:00:04.999Z; the next, 1, is due at 2026-11-29T12:00:05Z\n")

        let due = try run(["deliver"], at: "2026-11-29T12:00:05Z", in: directory)
        #expect(due.status == 0)
        #expect(due.stdoutLines.first == "notification 1 delivered at 2026-11-29T12:00:05Z:")
        #expect(due.stdout.contains("│ Your order"))
        #expect(due.stdout.contains("│ Ready for pickup"))

        let again = try run(["deliver", "--json"], at: "2026-11-29T12:01:00Z", in: directory)
        #expect(try NotifyCLI.array(again).isEmpty)

        let list = try NotifyCLI.array(try run(["list", "--json"], in: directory))
        #expect(list.count == 1)
        #expect(list[0]["state"] as? String == "delivered")
        #expect(list[0]["deliverySequence"] as? Int == 1)
    }

    @Test func showMeRevealsTheHiddenBodyThreeSecondsLater() throws {
        let directory = try TemporaryDirectory()
        let scheduled = try run(["schedule", "--title", "Receipt", "--body", "Paid 10.00 USD with Visa •••• 4242", "--hide-body", "--at", now], in: directory)
        #expect(scheduled.stdout == "scheduled notification 1 (REVEAL) for 2026-11-29T12:00:00Z\n")

        let hidden = try run(["deliver"], in: directory)
        #expect(!hidden.stdout.contains("Paid 10.00"))
        #expect(hidden.stdout.contains("Hidden: choose Show me to see it."))
        #expect(hidden.stdout.contains("actions: show-me (Show me) — paypanel notify respond 1 <action>"))

        let response = try run(["respond", "1", "show-me", "--json"], at: "2026-11-29T12:00:10Z", in: directory)
        #expect(response.status == 0, "\(response)")
        let answer = try NotifyCLI.object(response)
        #expect((answer["reveal"] as? [String: Any])?["deliverAt"] as? String == "2026-11-29T12:00:13Z")

        let tooEarly = try run(["deliver", "--json"], at: "2026-11-29T12:00:12.999Z", in: directory)
        #expect(try NotifyCLI.array(tooEarly).isEmpty)
        let shown = try NotifyCLI.array(try run(["deliver", "--json"], at: "2026-11-29T12:00:13Z", in: directory))
        #expect(shown.count == 1)
        #expect(shown[0]["body"] as? String == "Paid 10.00 USD with Visa •••• 4242")
        #expect(shown[0]["bodyHidden"] as? Bool == false)
        #expect(shown[0]["revealsId"] as? Int == 1)

        let list = try run(["list"], in: directory)
        #expect(list.stdoutLines.count == 3)
        #expect(list.stdoutLines[1].hasPrefix("1     responded show-me"))
    }

    @Test func answersAreValidated() throws {
        let directory = try TemporaryDirectory()
        _ = try run(["schedule", "--title", "Later", "--body", "B", "--hide-body", "--in", "60"], in: directory)
        let early = try run(["respond", "1", "show-me"], in: directory)
        #expect(early.status == 1)
        #expect(early.stderr == "Error: notification 1 has not been delivered yet (due at 2026-11-29T12:01:00Z): run 'paypanel notify deliver' once it is due, then answer it\n")
        _ = try run(["deliver"], at: "2026-11-29T12:01:00Z", in: directory)
        let wrong = try run(["respond", "1", "buy-apple-pay"], in: directory)
        #expect(wrong.stderr == "Error: \"buy-apple-pay\" is not an action of category REVEAL: use show-me\n")
        #expect(try run(["respond", "1", "show-me"], in: directory).status == 0)
        let twice = try run(["respond", "1", "show-me"], in: directory)
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("was already answered with show-me"))
        let missing = try run(["respond", "9", "show-me"], in: directory)
        #expect(missing.stderr == "Error: there is no notification 9: see 'paypanel notify list'\n")
        #expect(try run(["respond", "x", "show-me"], in: directory).status == 64)
    }

    @Test func aPaymentActionPayloadIsScheduledWhole() throws {
        let directory = try TemporaryDirectory()
        let scheduled = try run(["schedule", "--payload", NotifyCLI.fixture("payment-panel-update.json"), "--in", "0", "--json"], in: directory)
        #expect(scheduled.status == 0, "\(scheduled)")
        let delivered = try NotifyCLI.array(try run(["deliver", "--json"], in: directory))
        #expect(delivered.count == 1)
        #expect(delivered[0]["category"] as? String == "PAYMENT_ACTION")
        #expect(delivered[0]["threadId"] as? String == "order-A1001")
        #expect(delivered[0]["orderReference"] as? String == "A1001")
        #expect(delivered[0]["hasPayload"] as? Bool == true)
        let response = try run(["respond", "1", "buy-apple-pay"], in: directory)
        #expect(response.stdout == "notification 1: buy-apple-pay (Buy with Apple Pay): the Apple Pay sheet opens for the selected amount\n")
    }

    @Test func concurrentDeliverProcessesShowEachNotificationOnce() throws {
        let directory = try TemporaryDirectory()
        let database = directory.file("paypanel.sqlite")
        for index in 0..<24 {
            let result = try run(["schedule", "--title", "n\(index)", "--body", "b", "--at", now], in: directory)
            #expect(result.status == 0)
        }
        // Six processes at once on one database file, each delivering a few at a time.
        let outputs = DeliveredIDs()
        let group = DispatchGroup()
        for _ in 0..<6 {
            group.enter()
            Thread {
                defer { group.leave() }
                var ids: [Int] = []
                for _ in 0..<10 {
                    guard let result = try? CLIRunner.run(["notify", "deliver", "--limit", "3", "--json", "--db", database, "--now", now], in: directory),
                        result.status == 0, let batch = try? NotifyCLI.array(result)
                    else { ids.append(-1); break }
                    ids += batch.compactMap { $0["id"] as? Int }
                }
                outputs.append(ids)
            }.start()
        }
        group.wait()
        let ids = outputs.all
        #expect(!ids.contains(-1))
        #expect(ids.count == 24)
        #expect(Set(ids) == Set(1...24))
    }

    @Test(arguments: [
        (["schedule", "--title", "T", "--body", "B"], 64, "say when"),
        (["schedule", "--title", "T", "--body", "B", "--at", "2026-11-29T12:00:00Z", "--in", "1"], 64, "not both"),
        (["schedule", "--title", "T", "--in", "1"], 64, "give '--title' and '--body', or '--payload'"),
        (["schedule", "--title", "T", "--body", "B", "--in", "1", "--category", "SHOPPING"], 64, "unknown category 'SHOPPING'"),
        (["schedule", "--title", "T", "--body", "B", "--in", "-1"], 64, "'--in' takes a number of seconds"),
        (["schedule", "--title", "T", "--body", "B", "--in", "1", "--user-info", "[1]"], 64, "'--user-info' takes a JSON object"),
        (["schedule", "--title", "T", "--body", "B", "--in", "1", "--hide-body", "--category", "PAYMENT_ACTION"], 1, "use category REVEAL"),
        (["schedule", "--payload", "x.json", "--title", "T", "--in", "1"], 64, "comes from the payload"),
    ])
    func badSchedulesAreRefused(arguments: [String], status: Int32, message: String) throws {
        let directory = try TemporaryDirectory()
        let result = try run(arguments, in: directory)
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
    }

    @Test func anOversizedPayloadCannotBeScheduled() throws {
        let directory = try TemporaryDirectory()
        let result = try run(["schedule", "--payload", NotifyCLI.fixture("oversized.json"), "--in", "1"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.contains("the payload is 4492 bytes"))
        let list = try run(["list"], in: directory)
        #expect(list.stdout == "no notifications\n")
    }
}

/// Collects the ids each delivering thread saw.
final class DeliveredIDs: Sendable {
    private let collected = Mutex<[Int]>([])
    func append(_ ids: [Int]) { collected.withLock { $0 += ids } }
    var all: [Int] { collected.withLock { $0 } }
}
