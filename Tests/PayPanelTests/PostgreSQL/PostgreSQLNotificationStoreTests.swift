#if PostgreSQL
import Foundation
import PayPanel
import PayPanelPostgres
import TestSupport
import Testing

/// The notification schedule on PostgreSQL: the scheduler's rules unchanged, and two
/// deliverers on two stores delivering everything once with sequences 1, 2, 3….
@Suite struct PostgreSQLNotificationStoreTests {
    private let start = try! Timestamp.parse("2026-11-29T12:00:00Z")

    private func text(_ title: String, at date: Date) -> NotificationRequest {
        NotificationRequest(deliverAt: date, content: NotificationContent(title: title, body: "Body of \(title)"))
    }

    @Test func onlyWhatIsDueIsDeliveredOldestFirstAndNeverTwice() throws {
        let subject = try PostgreSQLStoreTests.Subject("pgnotify")
        let clock = ManualClock(start)
        let scheduler = NotificationScheduler(store: PostgreSQLNotificationStore(sharingConnectionsWith: try subject.open()), clock: clock)
        try scheduler.schedule(text("later", at: start.addingTimeInterval(60)))
        try scheduler.schedule(text("second", at: start))
        try scheduler.schedule(text("first", at: start.addingTimeInterval(-5)))
        let delivered = try scheduler.deliverDue()
        #expect(delivered.map(\.request.content.title) == ["first", "second"])
        #expect(delivered.map(\.deliverySequence) == [1, 2])
        #expect(try scheduler.deliverDue().isEmpty)
        clock.advance(by: 60)
        #expect(try scheduler.deliverDue().map(\.request.content.title) == ["later"])
        #expect(try scheduler.latestDeliverySequence() == 3)
    }

    @Test func twoDeliverersOnTwoStoresDeliverEachNotificationOnce() throws {
        let subject = try PostgreSQLStoreTests.Subject("pgnotify")
        let start = start
        let scheduler = NotificationScheduler(
            store: PostgreSQLNotificationStore(sharingConnectionsWith: try subject.open()), clock: ManualClock(start))
        for index in 0..<20 { try scheduler.schedule(text("n\(index)", at: start.addingTimeInterval(Double(-index)))) }
        let url = subject.url
        let schema = subject.schema
        let delivered = Concurrently.run(2) { _ -> [Int64] in
            guard let store = try? PostgreSQLPaymentStore(url: url, schema: schema, migrate: false) else { return [-1] }
            let deliverer = NotificationScheduler(store: PostgreSQLNotificationStore(sharingConnectionsWith: store), clock: ManualClock(start))
            var ids: [Int64] = []
            for _ in 0..<10 { ids += ((try? deliverer.deliverDue(limit: 3)) ?? []).map(\.id) }
            return ids
        }
        let all = delivered.flatMap { $0 }
        #expect(all.count == 20 && Set(all).count == 20, "\(delivered)")
        let sequences = try scheduler.list(state: .delivered).compactMap(\.deliverySequence).sorted()
        #expect(sequences == Array(1...20))
    }
}
#endif
