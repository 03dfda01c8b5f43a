import Foundation
@testable import PayPanel
import Synchronization
import TestSupport
import Testing

/// A push is sent by the request that queued it: the delivery's insert and its first claim run in
/// one turn of the outbox, so a worker pass queued on the outbox's thread in between finds it
/// claimed. A suspension added between the two would let the pass take it, and the request would
/// answer "pending" instead of APNs' answer.
@Suite struct PushClaimRaceTests {
    /// A device store that, right after a delivery's insert, waits until `then` has queued a
    /// job on the outbox's thread behind the running one.
    final class InsertHook: DeviceStore, @unchecked Sendable {
        let base: any DeviceStore
        let then = Mutex<(@Sendable () -> Void)?>(nil)
        let queuedBehind = Atomic<Bool>(false)

        init(_ base: any DeviceStore) { self.base = base }

        func insertDelivery(_ delivery: NewPushDelivery, at now: Date) throws -> Int64 {
            let id = try base.insertDelivery(delivery, at: now)
            if let then = then.withLock({ $0 }) {
                then()
                queuedBehind.store(QueuedCalls.holdCurrentThread(untilQueued: 1), ordering: .releasing)
            }
            return id
        }

        func insertDevice(_ device: Device) throws { try base.insertDevice(device) }
        func device(_ id: String) throws -> Device? { try base.device(id) }
        func device(token: String, topic: String, environment: APNsEnvironment) throws -> Device? {
            try base.device(token: token, topic: topic, environment: environment)
        }
        func devices() throws -> [Device] { try base.devices() }
        func markDeviceDead(_ id: String, reason: String, at: Date) throws -> Bool { try base.markDeviceDead(id, reason: reason, at: at) }
        func delivery(_ id: Int64) throws -> PushDelivery? { try base.delivery(id) }
        func latestDelivery(checkoutID: String) throws -> PushDelivery? { try base.latestDelivery(checkoutID: checkoutID) }
        func dueDeliveryIDs(at now: Date, limit: Int) throws -> [Int64] { try base.dueDeliveryIDs(at: now, limit: limit) }
        func claimDelivery(_ id: Int64, at now: Date, claimUntil: Date) throws -> PushDelivery? {
            try base.claimDelivery(id, at: now, claimUntil: claimUntil)
        }
        func recordAttempt(_ id: Int64, attempt: Int, result: PushAttemptResult, at now: Date) throws {
            try base.recordAttempt(id, attempt: attempt, result: result, at: now)
        }
        func attempts(deliveryID: Int64) throws -> [PushAttempt] { try base.attempts(deliveryID: deliveryID) }
    }

    @Test func aWorkerPassQueuedRightAfterTheInsertDoesNotTakeThePushFromItsRequest() async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try StoreKind.sqliteFile.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport([.status(400, reason: "BadDeviceToken")])
        let store = InsertHook(try database.factory.openDeviceStore())
        let outbox = PushOutbox(store: store, provider: try APNsFixtures.provider(transport, clock: clock), clock: clock, randomSeed: 7)
        let device = try await outbox.register(token: APNsFixtures.token, topic: APNsFixtures.topic, environment: .development)
        let pass = Mutex<Task<[PushDelivery], any Error>?>(nil)
        store.then.withLock { $0 = { pass.withLock { $0 = Task { try await outbox.drain() } } } }
        let pushed = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        let queuedBehind = store.queuedBehind.load(ordering: .acquiring)
        #expect(queuedBehind, "the worker's pass waited on the outbox's thread behind the push")
        #expect(pushed.status == .deviceDead, "the request got APNs' answer: \(pushed)")
        #expect(pushed.reason == "BadDeviceToken")
        let drained = try await #require(pass.withLock { $0 }).value
        #expect(drained.isEmpty, "the worker found nothing to send")
        #expect(transport.requests.count == 1)
    }
}
