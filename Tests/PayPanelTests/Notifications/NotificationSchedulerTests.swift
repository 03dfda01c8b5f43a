import Foundation
import PayPanel
import Testing
import TestSupport

@Suite struct NotificationSchedulerTests {
    private let start = try! Timestamp.parse("2026-11-29T12:00:00Z")

    private func scheduler(_ path: String = ":memory:", clock: ManualClock) throws -> NotificationScheduler {
        NotificationScheduler(database: try Database.openMigrated(path: path, clock: clock), clock: clock)
    }

    private func text(_ title: String, at date: Date, hidden: Bool = false, category: String? = nil) -> NotificationRequest {
        NotificationRequest(deliverAt: date, category: category ?? (hidden ? "REVEAL" : nil),
                            content: NotificationContent(title: title, body: "Body of \(title)"), bodyHidden: hidden)
    }

    @Test func theMigrationCreatesTheTable() throws {
        let database = try Database.openMigrated(path: ":memory:", clock: ManualClock(start))
        let status = try Migrator(set: .main).status(database)
        #expect(status.applied.contains { $0.identifier == "0003_notifications" })
        #expect(status.pending.isEmpty)
    }

    @Test func onlyWhatIsDueIsDeliveredOldestFirst() throws {
        let clock = ManualClock(start)
        let scheduler = try scheduler(clock: clock)
        try scheduler.schedule(text("later", at: start.addingTimeInterval(60)))
        try scheduler.schedule(text("second", at: start))
        try scheduler.schedule(text("first", at: start.addingTimeInterval(-5)))
        let delivered = try scheduler.deliverDue()
        #expect(delivered.map(\.request.content.title) == ["first", "second"])
        #expect(delivered.map(\.deliverySequence) == [1, 2])
        #expect(delivered.allSatisfy { $0.state == .delivered && $0.deliveredAt == start })
        #expect(try scheduler.deliverDue().isEmpty)  // never twice
        clock.advance(by: 60)
        #expect(try scheduler.deliverDue().map(\.request.content.title) == ["later"])
        #expect(try scheduler.latestDeliverySequence() == 3)
    }

    @Test func aLimitDeliversTheOldestFirst() throws {
        let scheduler = try scheduler(clock: ManualClock(start))
        for index in 0..<5 { try scheduler.schedule(text("n\(index)", at: start.addingTimeInterval(Double(-index)))) }
        #expect(try scheduler.deliverDue(limit: 2).map(\.request.content.title) == ["n4", "n3"])
        #expect(try scheduler.list(state: .pending).count == 3)
        #expect(try scheduler.list(state: .delivered).map(\.request.content.title) == ["n3", "n4"])
        #expect(try scheduler.nextPending()?.request.content.title == "n2")
    }

    @Test func concurrentDeliverersOnOneFileDeliverEachNotificationOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("notifications.sqlite")
        let clock = ManualClock(start)
        let setup = try scheduler(path, clock: clock)
        for index in 0..<200 { try setup.schedule(text("n\(index)", at: start)) }
        let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    // Each worker has its own connection, like a separate process.
                    let worker = NotificationScheduler(database: try Database(path: path), clock: clock)
                    var mine: [Int64] = []
                    while true {
                        let batch = try worker.deliverDue(limit: 7)
                        if batch.isEmpty { return mine }
                        mine += batch.map(\.id)
                    }
                }
            }
            var all: [Int64] = []
            for try await batch in group { all += batch }
            return all
        }
        #expect(ids.count == 200)
        #expect(Set(ids).count == 200)
        let sequences = try setup.list().compactMap(\.deliverySequence)
        #expect(Set(sequences) == Set(1...200))
    }

    @Test func showMeRevealsAHiddenBodyThreeSecondsLater() throws {
        let clock = ManualClock(start)
        let scheduler = try scheduler(clock: clock)
        let hidden = try scheduler.schedule(text("Receipt", at: start, hidden: true))
        let delivered = try scheduler.deliverDue()
        #expect(delivered.first?.displayedContent.body == ScheduledNotification.hiddenBodyPlaceholder)
        #expect(JSONWriter.string(delivered[0].json).contains("Body of Receipt") == false)  // never printed while hidden

        clock.advance(by: 10)
        let response = try scheduler.respond(id: hidden.id, action: "show-me")
        let reveal = try #require(response.reveal)
        #expect(reveal.request.deliverAt == start.addingTimeInterval(13))
        #expect(reveal.request.bodyHidden == false)
        #expect(reveal.revealsID == hidden.id)
        #expect(try scheduler.notification(id: hidden.id)?.state == .responded)

        clock.advance(by: 2.999)
        #expect(try scheduler.deliverDue().isEmpty)
        clock.advance(by: 0.001)
        let shown = try scheduler.deliverDue()
        #expect(shown.map(\.id) == [reveal.id])
        #expect(shown.first?.displayedContent.body == "Body of Receipt")
    }

    @Test func showMeOnAShownBodySchedulesNothing() throws {
        let scheduler = try scheduler(clock: ManualClock(start))
        let note = try scheduler.schedule(text("Plain", at: start, category: "REVEAL"))
        _ = try scheduler.deliverDue()
        let response = try scheduler.respond(id: note.id, action: "show-me")
        #expect(response.reveal == nil)
        #expect(response.outcome.contains("already shown"))
    }

    @Test func paymentActionsAreRecorded() throws {
        let scheduler = try scheduler(clock: ManualClock(start))
        let payload = try NotificationFixtures.payload("payment-panel.json")
        let note = try scheduler.schedule(NotificationRequest(payload: payload, deliverAt: start))
        _ = try scheduler.deliverDue()
        let response = try scheduler.respond(id: note.id, action: "buy-apple-pay")
        #expect(response.notification.responseAction == "buy-apple-pay")
        #expect(response.reveal == nil)
    }

    @Test func answersAreCheckedAndGivenOnce() throws {
        let scheduler = try scheduler(clock: ManualClock(start))
        let pending = try scheduler.schedule(text("Later", at: start.addingTimeInterval(60), hidden: true))
        #expect(throws: NotificationSchedulingError.notDelivered(id: pending.id, deliverAt: start.addingTimeInterval(60))) {
            try scheduler.respond(id: pending.id, action: "show-me")
        }
        #expect(throws: NotificationSchedulingError.notFound(99)) { try scheduler.respond(id: 99, action: "show-me") }
        let plain = try scheduler.schedule(text("No category", at: start))
        let reveal = try scheduler.schedule(text("Reveal", at: start, hidden: true))
        _ = try scheduler.deliverDue()
        #expect(throws: NotificationSchedulingError.noActions(id: plain.id, category: nil)) {
            try scheduler.respond(id: plain.id, action: "show-me")
        }
        #expect(throws: NotificationSchedulingError.unknownAction(action: "buy-apple-pay", category: .reveal)) {
            try scheduler.respond(id: reveal.id, action: "buy-apple-pay")
        }
        _ = try scheduler.respond(id: reveal.id, action: "show-me")
        #expect(throws: NotificationSchedulingError.alreadyAnswered(id: reveal.id, action: "show-me", at: start)) {
            try scheduler.respond(id: reveal.id, action: "show-me")
        }
        #expect(try scheduler.list().filter { $0.revealsID == reveal.id }.count == 1)
    }

    @Test func aHiddenBodyNeedsTheRevealCategory() throws {
        let scheduler = try scheduler(clock: ManualClock(start))
        #expect(throws: NotificationSchedulingError.self) {
            try scheduler.schedule(text("x", at: start, hidden: true, category: "PAYMENT_ACTION"))
        }
        #expect(try scheduler.list().isEmpty)
    }

    @Test func aPollerSeesOnlyNewDeliveriesForItsPanel() throws {
        let clock = ManualClock(start)
        let scheduler = try scheduler(clock: clock)
        let panel = try NotificationFixtures.payload("payment-panel.json")
        try scheduler.schedule(NotificationRequest(payload: panel, deliverAt: start))
        _ = try scheduler.deliverDue()
        let cursor = try scheduler.latestDeliverySequence()  // the checkout opens here

        let update = try NotificationFixtures.payload("payment-panel-update.json")
        try scheduler.schedule(NotificationRequest(payload: update, deliverAt: start.addingTimeInterval(5)))
        try scheduler.schedule(text("Unrelated", at: start.addingTimeInterval(5)))
        #expect(try scheduler.delivered(after: cursor, threadID: "order-A1001", orderReference: "A1001").isEmpty)
        clock.advance(by: 5)
        _ = try scheduler.deliverDue()
        let seen = try scheduler.delivered(after: cursor, threadID: "order-A1001", orderReference: "A1001")
        #expect(seen.count == 1)
        // The stored payload reads back and applies to the open panel.
        var state = try NotificationPanelState(payload: panel)
        let stored = try #require(seen.first?.pushPayload)
        guard case .applied = state.apply(stored) else {
            Issue.record("the delivered update did not apply")
            return
        }
        #expect(state.selector.options.map(\.minorUnits) == [1000, 2000, 5000])
        #expect(try scheduler.delivered(after: cursor, threadID: nil, orderReference: "A1001").count == 1)
        #expect(try scheduler.delivered(after: seen[0].deliverySequence!, threadID: "order-A1001", orderReference: "A1001").isEmpty)
    }

    @Test func userInfoAndPayloadRoundTrip() throws {
        let scheduler = try scheduler(clock: ManualClock(start))
        var request = text("Info", at: start)
        request.userInfo = JSONObject([(key: "orderReference", value: "A1"), (key: "amount", value: 1000)])
        let stored = try scheduler.schedule(request)
        #expect(stored.request == request)
    }
}
