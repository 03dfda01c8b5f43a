import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// Every answer of APNs → its action, and what the outbox does about it, with a scripted transport.
/// The outbox tests run on every `StoreKind` that holds several stores on one database (a SQLite
/// file, PostgreSQL): the `DeviceStore` conformance suite.
@Suite struct PushOutboxTests {
    /// Apple's reasons and the action the brief asks for, written out here independently of
    /// `APNsReasonTable` so a changed row fails this test.
    static let expected: [(Int, String, APNsAction)] = [
        (400, "BadCollapseId", .reject), (400, "BadDeviceToken", .deviceDead), (400, "BadExpirationDate", .reject),
        (400, "BadMessageId", .reject), (400, "BadPriority", .reject), (400, "BadTopic", .reject),
        (400, "DeviceTokenNotForTopic", .deviceDead), (400, "DuplicateHeaders", .reject), (400, "IdleTimeout", .retry),
        (400, "InvalidPushType", .reject), (400, "MissingDeviceToken", .reject), (400, "MissingTopic", .reject),
        (400, "PayloadEmpty", .reject), (400, "TopicDisallowed", .reject),
        (403, "BadCertificate", .refreshProviderToken), (403, "BadCertificateEnvironment", .refreshProviderToken),
        (403, "ExpiredProviderToken", .refreshProviderToken), (403, "Forbidden", .refreshProviderToken),
        (403, "InvalidProviderToken", .refreshProviderToken), (403, "MissingProviderToken", .refreshProviderToken),
        (403, "UnrelatedKeyIdInToken", .refreshProviderToken), (403, "BadEnvironmentKeyIdInToken", .refreshProviderToken),
        (404, "BadPath", .reject), (405, "MethodNotAllowed", .reject), (410, "ExpiredToken", .deviceDead), (410, "Unregistered", .deviceDead),
        (413, "PayloadTooLarge", .reject), (429, "TooManyProviderTokenUpdates", .retry), (429, "TooManyRequests", .retry),
        (500, "InternalServerError", .retry), (503, "ServiceUnavailable", .retry), (503, "Shutdown", .retry),
    ]

    @Test(arguments: expected.indices)
    func everyReasonOfApplesTableHasItsAction(_ index: Int) {
        let (status, reason, action) = Self.expected[index]
        let body = Array(#"{"reason":"\#(reason)"}"#.utf8)
        #expect(APNsResponse(status: status, apnsID: nil, body: body).action == action)
    }

    @Test func theTableHasNoRowTheTestDoesNotKnow() {
        #expect(APNsReasonTable.reasons.count == Self.expected.count)
        #expect(APNsReasonTable.action(status: 200, reason: nil) == .sent)
        // An unknown reason: what its status means.
        #expect(APNsReasonTable.action(status: 410, reason: "SomethingNew") == .deviceDead)
        #expect(APNsReasonTable.action(status: 503, reason: nil) == .retry)
        #expect(APNsReasonTable.action(status: 400, reason: "SomethingNew") == .reject)
    }

    func registered(_ outbox: PushOutbox) async throws -> Device {
        try await outbox.register(token: APNsFixtures.token, topic: APNsFixtures.topic, environment: .development)
    }

    @Test(arguments: StoreKind.shared)
    func aSentPushCarriesTheHeadersAndTheProviderToken(kind: StoreKind) async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport([.status(200)])
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await registered(outbox)
        let expiry = APNsFixtures.start.addingTimeInterval(3600)
        let delivery = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: "co_abc", expiresAt: expiry)
        #expect(delivery.status == .sent)
        #expect(delivery.attempts == 1)
        let request = try #require(transport.requests.first)
        #expect(request.url == "https://apns.test/3/device/\(APNsFixtures.token)")
        #expect(request.headers["apns-topic"] == APNsFixtures.topic)
        #expect(request.headers["apns-push-type"] == "alert")
        #expect(request.headers["apns-priority"] == "10")
        #expect(request.headers["apns-expiration"] == String(Int64(expiry.timeIntervalSince1970)))
        #expect(request.headers["apns-collapse-id"] == "co_abc")
        #expect(request.headers["apns-id"] == delivery.apnsID)
        #expect(request.headers["authorization"]?.hasPrefix("bearer ey") == true)
        #expect(request.body == APNsFixtures.payload)
        #expect(try await outbox.attempts(deliveryID: delivery.id).map(\.outcome) == [.sent])
    }

    static let deadAnswers: [(Int, String, Int64?)] = [
        (400, "BadDeviceToken", nil), (400, "DeviceTokenNotForTopic", nil), (410, "Unregistered", Int64(1_795_999_000_000)),
    ]

    @Test(arguments: StoreKind.shared, deadAnswers.indices)
    func aDeadTokenMarksTheDeviceDeadAndIsNeverUsedAgain(kind: StoreKind, _ index: Int) async throws {
        let (status, reason, timestamp) = Self.deadAnswers[index]
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport([.status(status, reason: reason, timestamp: timestamp)])
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await registered(outbox)
        let delivery = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        #expect(delivery.status == .deviceDead)
        #expect(delivery.reason == reason)
        let dead = try #require(try await outbox.device(device.id)?.dead)
        #expect(dead.reason == reason)
        #expect(dead.at == timestamp.map(Timestamp.date(epochMilliseconds:)) ?? APNsFixtures.start)
        if let timestamp {
            let body = Array(#"{"reason":"Unregistered","timestamp":\#(timestamp)}"#.utf8)
            #expect(APNsResponse(status: 410, apnsID: nil, body: body).invalidSince == Timestamp.date(epochMilliseconds: timestamp))
        }
        await #expect(throws: PushError.self) { try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil) }
        await #expect(throws: PushError.self) { try await registered(outbox) }
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: StoreKind.shared)
    func a413IsNeverRetried(kind: StoreKind) async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport([.status(413, reason: "PayloadTooLarge")])
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await registered(outbox)
        let delivery = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        #expect(delivery.status == .failed)
        #expect(delivery.reason == "PayloadTooLarge")
        clock.advance(by: 3600)
        #expect(try await outbox.drain().isEmpty)
        #expect(transport.requests.count == 1)
        #expect(try await outbox.device(device.id)?.isDead == false)
    }

    static let busyAnswers: [(Int, String)] = [(429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable"), (0, "no answer")]

    @Test(arguments: StoreKind.shared, busyAnswers.indices)
    func busyAnswersAreRetriedWithBackoff(kind: StoreKind, _ index: Int) async throws {
        let (status, reason) = Self.busyAnswers[index]
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let failure: ScriptedAPNsTransport.Answer = status == 0 ? .noAnswer : .status(status, reason: reason)
        let transport = ScriptedAPNsTransport([failure, failure, .status(200)])
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await registered(outbox)
        let first = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        #expect(first.status == .pending)
        #expect(first.nextAttemptAt == APNsFixtures.start.addingTimeInterval(5))
        // Not due yet: nothing is sent.
        clock.advance(by: 4)
        #expect(try await outbox.drain().isEmpty)
        clock.advance(by: 1)
        let second = try #require(try await outbox.drain().first)
        #expect(second.status == .pending)
        #expect(second.nextAttemptAt == clock.now().addingTimeInterval(10))
        clock.advance(by: 10)
        let third = try #require(try await outbox.drain().first)
        #expect(third.status == .sent)
        #expect(third.attempts == 3)
        // One apns-id for every attempt of one push.
        #expect(Set(transport.requests.map { $0.headers["apns-id"] }).count == 1)
        #expect(try await outbox.attempts(deliveryID: third.id).map(\.outcome) == [status == 0 ? .unreachable : .retry, status == 0 ? .unreachable : .retry, .sent])
    }

    @Test(arguments: StoreKind.shared)
    func retriesRunOutAfterTheLastAttempt(kind: StoreKind) async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport(Array(repeating: .status(503, reason: "ServiceUnavailable"), count: 20))
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await registered(outbox)
        var delivery = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        while delivery.status == .pending {
            clock.advance(by: 600)
            delivery = try #require(try await outbox.drain().first)
        }
        #expect(delivery.status == .failed)
        #expect(delivery.attempts == PushOutbox.maximumAttempts)
        #expect(transport.requests.count == PushOutbox.maximumAttempts)
    }

    @Test(arguments: StoreKind.shared)
    func anExpiredProviderTokenIsRefreshedOnceAndTheSameApnsIDResent(kind: StoreKind) async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport([.status(403, reason: "ExpiredProviderToken"), .status(200)])
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await registered(outbox)
        let delivery = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        #expect(delivery.status == .sent)
        let requests = transport.requests
        #expect(requests.count == 2)
        #expect(requests[0].headers["authorization"] != requests[1].headers["authorization"])
        #expect(requests[0].headers["apns-id"] == requests[1].headers["apns-id"])
    }

    @Test(arguments: StoreKind.shared)
    func aProviderTokenRefusedTwiceFailsLoudly(kind: StoreKind) async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport([.status(403, reason: "InvalidProviderToken"), .status(403, reason: "InvalidProviderToken")])
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await registered(outbox)
        let delivery = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        #expect(delivery.status == .failed)
        #expect(delivery.reason == "InvalidProviderToken")
        #expect(try await outbox.attempts(deliveryID: delivery.id).map(\.outcome) == [.tokenRefused])
        #expect(transport.requests.count == 2)
        #expect(try await outbox.device(device.id)?.isDead == false)
    }

    @Test(arguments: StoreKind.shared)
    func aCrashBetweenSendingAndRecordingResendsWithTheSameApnsID(kind: StoreKind) async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        // Queued without a provider's first attempt: a second connection plays the sender that
        // claimed it, sent it, and died before recording the answer.
        let transport = ScriptedAPNsTransport([.status(200)])
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await registered(outbox)
        let crashed = try APNsFixtures.secondConnection(database)
        let id = try crashed.insertDelivery(
            NewPushDelivery(apnsID: "6f1e7a2c-0b4d-4e55-9a0e-2f3c4d5e6f70", deviceID: device.id, checkoutID: nil, collapseID: nil,
                            payload: APNsFixtures.payload, expiresAt: nil), at: clock.now())
        #expect(try crashed.claimDelivery(id, at: clock.now(), claimUntil: clock.now().addingTimeInterval(PushOutbox.claimDuration)) != nil)
        // While the claim holds, nobody else sends it.
        #expect(try await outbox.drain().isEmpty)
        clock.advance(by: PushOutbox.claimDuration)
        let resent = try #require(try await outbox.drain().first)
        #expect(resent.status == .sent)
        #expect(transport.requests.first?.headers["apns-id"] == "6f1e7a2c-0b4d-4e55-9a0e-2f3c4d5e6f70")
        // Both attempts are on record; the crashed one is still in flight.
        #expect(try await outbox.attempts(deliveryID: id).map(\.outcome) == [.inFlight, .sent])
    }

    @Test(arguments: StoreKind.shared)
    func aTokenOfTheOtherEnvironmentIsNotSentAndNotKilled(kind: StoreKind) async throws {
        let clock = ManualClock(APNsFixtures.start)
        let database = try kind.makeFactory(clock: clock)
        let transport = ScriptedAPNsTransport([])
        let outbox = try APNsFixtures.outbox(transport, clock: clock, on: database)
        let device = try await outbox.register(token: APNsFixtures.token, topic: APNsFixtures.topic, environment: .production)
        let delivery = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        #expect(delivery.status == .failed)
        #expect(delivery.reason == "environment_mismatch")
        #expect(transport.requests.isEmpty)
        #expect(try await outbox.device(device.id)?.isDead == false)
    }

    @Test(arguments: StoreKind.shared)
    func withoutAProviderPushesAreRecordedAsSkipped(kind: StoreKind) async throws {
        let database = try kind.makeFactory(clock: ManualClock(APNsFixtures.start))
        let outbox = try APNsFixtures.outbox(nil, clock: ManualClock(APNsFixtures.start), on: database)
        let device = try await registered(outbox)
        let delivery = try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: nil, expiresAt: nil)
        #expect(delivery.status == .skipped)
        #expect(delivery.reason == "apns_not_configured")
    }

    @Test(arguments: StoreKind.shared, ["", "xyz", String(repeating: "a", count: 63), String(repeating: "g", count: 64)])
    func malformedDeviceTokensAreRefused(kind: StoreKind, _ token: String) async throws {
        let database = try kind.makeFactory(clock: ManualClock(APNsFixtures.start))
        let outbox = try APNsFixtures.outbox(nil, clock: ManualClock(APNsFixtures.start), on: database)
        await #expect(throws: PushError.self) { try await outbox.register(token: token, topic: APNsFixtures.topic, environment: .development) }
    }
}
