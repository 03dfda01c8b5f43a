import Foundation
@testable import PayPanel
import Synchronization
import TestSupport
import Testing

/// A push is sent by the request that queued it: its delivery is written already claimed, its
/// first attempt in flight, so no worker finds it unclaimed between the insert and the send —
/// not a pass queued on the outbox's thread, not the worker of another server on the same
/// database. Were it inserted unclaimed and claimed afterwards, that other server's worker could
/// take it in between, and the request would answer "pending" with no reason instead of APNs'
/// answer (what `APNsIntegrationTests.checkoutsArePushedDeadTokensMarkedDeadAndAGOAWAYLosesNothing`
/// met twice in a full local run).
@Suite struct PushClaimRaceTests {
    /// A device store that, right after a delivery's insert, waits until `then` has queued a
    /// job on the outbox's thread behind the running one, or runs `afterInsert` to its end.
    final class InsertHook: DeviceStore, @unchecked Sendable {
        let base: any DeviceStore
        let then = Mutex<(@Sendable () -> Void)?>(nil)
        let queuedBehind = Atomic<Bool>(false)
        let afterInsert = Mutex<(@Sendable () -> Void)?>(nil)

        init(_ base: any DeviceStore) { self.base = base }

        func insertDelivery(_ delivery: NewPushDelivery, at now: Date) throws -> Int64 {
            let id = try base.insertDelivery(delivery, at: now)
            hooks()
            return id
        }

        func insertClaimedDelivery(_ delivery: NewPushDelivery, at now: Date, claimUntil: Date) throws -> PushDelivery {
            let claimed = try base.insertClaimedDelivery(delivery, at: now, claimUntil: claimUntil)
            hooks()
            return claimed
        }

        private func hooks() {
            if let then = then.withLock({ $0 }) {
                then()
                queuedBehind.store(QueuedCalls.holdCurrentThread(untilQueued: 1), ordering: .releasing)
            }
            afterInsert.withLock { $0 }?()
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

    /// Two servers on one database, each with its worker: the other server's pass, run to its
    /// end right after the push's delivery is written (while the request that queued it waits to
    /// send), finds nothing to send.
    @Test(arguments: StoreKind.shared)
    func anotherServersWorkerRightAfterTheInsertDoesNotTakeThePush(kind: StoreKind) async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport([.status(400, reason: "BadDeviceToken")])
        let otherTransport = ScriptedAPNsTransport([.status(200)])
        let store = InsertHook(try database.factory.openDeviceStore())
        let outbox = PushOutbox(store: store, provider: try APNsFixtures.provider(transport, clock: clock), clock: clock, randomSeed: 7)
        let otherServer = PushOutbox(
            store: try APNsFixtures.secondConnection(database), provider: try APNsFixtures.provider(otherTransport, clock: clock), clock: clock,
            randomSeed: 8)
        let device = try await outbox.register(token: APNsFixtures.token, topic: APNsFixtures.topic, environment: .development)
        let otherPass = Mutex<Task<[PushDelivery], any Error>?>(nil)
        store.afterInsert.withLock {
            $0 = {
                // Holds this outbox's thread (its own, not the pool's) until the other pass ends.
                let ended = DispatchSemaphore(value: 0)
                let pass = Task {
                    defer { ended.signal() }
                    return try await otherServer.drain()
                }
                otherPass.withLock { $0 = pass }
                ended.wait()
            }
        }
        let pushed = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        let sentByTheOther = try await #require(otherPass.withLock { $0 }).value
        #expect(sentByTheOther.isEmpty, "the other server's worker found nothing to send: \(sentByTheOther)")
        #expect(otherTransport.requests.isEmpty)
        #expect(pushed.status == .deviceDead, "the request got APNs' answer: \(pushed)")
        #expect(pushed.reason == "BadDeviceToken")
        #expect(pushed.attempts == 1)
        #expect(try await outbox.attempts(deliveryID: pushed.id).map(\.outcome) == [.deviceDead])
    }
}
