import Foundation
import MockProcessor
import PayPanel
import Testing

/// The rules a real processor enforces on capture, void and refund, and the authorization
/// window, on an ordinary approved authorization of 10.00 USD.
@Suite struct SettlementRuleTests {
    static func capture(_ minorUnits: Int64, _ reference: String = "att_1", currency: String = "USD") throws -> CaptureRequest {
        CaptureRequest(reference: reference, amount: Requests.amount(minorUnits, try Currency(code: currency)))
    }

    static func refund(_ minorUnits: Int64, _ refundReference: String, of reference: String = "att_1") -> RefundRequest {
        RefundRequest(reference: reference, refundReference: refundReference, amount: Requests.amount(minorUnits))
    }

    @Test(arguments: [
        (Int64(0), "invalid_amount"), (-100, "invalid_amount"), (1001, "amount_too_large"),
    ])
    func captureAmountMustBePositiveAndAtMostTheAuthorization(_ amount: Int64, _ code: String) async throws {
        let harness = try ProcessorHarness()
        #expect(try await harness.processor.approvedAuthorization("att_1") != nil)
        #expect(await harness.processor.capture(try Self.capture(amount), timeout: callerTimeout).declineCode?.rawValue == code)
        // Recorded as a refused capture, and the authorization can still be captured.
        #expect(try harness.entries().last?.status == .declined)
        #expect(await harness.processor.capture(try Self.capture(1000), timeout: callerTimeout).approval != nil)
    }

    @Test func captureInAnotherCurrencyIsRefused() async throws {
        let harness = try ProcessorHarness()
        #expect(try await harness.processor.approvedAuthorization("att_1") != nil)
        let outcome = await harness.processor.capture(try Self.capture(1000, currency: "EUR"), timeout: callerTimeout)
        #expect(outcome == .declined(.currencyMismatch))
    }

    @Test func partialCaptureIsAllowedOnceAndReleasesTheRest() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1") != nil)
        let first = await processor.capture(try Self.capture(600), timeout: callerTimeout)
        #expect(first.approval?.amount == Requests.amount(600))
        // The same capture again is a retry: same answer, nothing new recorded.
        #expect(await processor.capture(try Self.capture(600), timeout: callerTimeout) == first)
        // Another capture of the remaining 400 is a second capture: refused.
        #expect(await processor.capture(try Self.capture(400), timeout: callerTimeout) == .declined(.alreadyCaptured))
        let captures = try harness.entries().filter { $0.operation == .capture }.map(\.status)
        #expect(captures == [.approved, .declined])
    }

    @Test func captureOfADeclinedOrPendingAuthorizationIsRefused() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        _ = await processor.authorize(Requests.authorization("att_declined", method: try Requests.card("4000000000000002")), timeout: callerTimeout)
        _ = await processor.authorize(Requests.authorization("att_3ds", method: try Requests.card("4000002760003184")), timeout: callerTimeout)
        #expect(await processor.capture(try Self.capture(1000, "att_declined"), timeout: callerTimeout) == .declined(.authorizationNotApproved))
        #expect(await processor.capture(try Self.capture(1000, "att_3ds"), timeout: callerTimeout) == .declined(.authorizationNotApproved))
        #expect(await processor.void(reference: "att_3ds", timeout: callerTimeout) == .declined(.authorizationNotApproved))
    }

    @Test func operationsOnAnUnknownReferenceAreRefusedAndLeaveNoEntry() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(await processor.capture(try Self.capture(1000, "att_nope"), timeout: callerTimeout) == .declined(.authorizationNotFound))
        #expect(await processor.void(reference: "att_nope", timeout: callerTimeout) == .declined(.authorizationNotFound))
        #expect(await processor.refund(Self.refund(100, "rf_1", of: "att_nope"), timeout: callerTimeout) == .declined(.authorizationNotFound))
        #expect(try harness.entries().isEmpty)
    }

    @Test func voidOnlyBeforeCapture() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_captured") != nil)
        #expect(await processor.capture(try Self.capture(1000, "att_captured"), timeout: callerTimeout).approval != nil)
        #expect(await processor.void(reference: "att_captured", timeout: callerTimeout) == .declined(.alreadyCaptured))

        #expect(try await processor.approvedAuthorization("att_voided") != nil)
        let void = await processor.void(reference: "att_voided", timeout: callerTimeout)
        #expect(void.approval?.amount == Requests.amount(1000))
        #expect(await processor.void(reference: "att_voided", timeout: callerTimeout) == void)
        #expect(await processor.capture(try Self.capture(1000, "att_voided"), timeout: callerTimeout) == .declined(.alreadyVoided))
        #expect(await processor.refund(Self.refund(100, "rf_1", of: "att_voided"), timeout: callerTimeout) == .declined(.alreadyVoided))
        #expect(try harness.entries(reference: "att_voided").filter { $0.operation == .void }.count == 1)
    }

    @Test func refundsArePartialAndMultipleButNeverAboveTheCapture() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1") != nil)
        #expect(await processor.refund(Self.refund(100, "rf_0"), timeout: callerTimeout) == .declined(.notCaptured))
        #expect(await processor.capture(try Self.capture(800), timeout: callerTimeout).approval != nil)

        #expect(await processor.refund(Self.refund(300, "rf_1"), timeout: callerTimeout).approval?.amount == Requests.amount(300))
        #expect(await processor.refund(Self.refund(300, "rf_2"), timeout: callerTimeout).approval?.amount == Requests.amount(300))
        #expect(await processor.refund(Self.refund(201, "rf_3"), timeout: callerTimeout) == .declined(.amountTooLarge))
        #expect(await processor.refund(Self.refund(0, "rf_4"), timeout: callerTimeout) == .declined(.invalidAmount))
        #expect(await processor.refund(Self.refund(200, "rf_5"), timeout: callerTimeout).approval?.amount == Requests.amount(200))
        #expect(await processor.refund(Self.refund(1, "rf_6"), timeout: callerTimeout) == .declined(.amountTooLarge))

        let approvedRefunds = try harness.entries().filter { $0.operation == .refund && $0.status == .approved }
        #expect(approvedRefunds.map(\.amount.minorUnits).reduce(0, +) == 800)
    }

    @Test func aRefundReferenceIsAnIdempotencyKey() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1") != nil)
        #expect(await processor.capture(try Self.capture(1000), timeout: callerTimeout).approval != nil)
        let first = await processor.refund(Self.refund(300, "rf_1"), timeout: callerTimeout)
        #expect(await processor.refund(Self.refund(300, "rf_1"), timeout: callerTimeout) == first)
        #expect(await processor.refund(Self.refund(400, "rf_1"), timeout: callerTimeout) == .declined(.idempotencyKeyReused))
        #expect(try harness.entries().filter { $0.operation == .refund }.count == 1)
        #expect(await processor.refund(Self.refund(300, ""), timeout: callerTimeout) == .declined(.invalidRequest))
    }

    @Test func captureAfterTheAuthorizationWindowIsDeclinedExpired() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        let approval = try #require(try await processor.approvedAuthorization("att_1"))
        let expiresAt = try #require(approval.expiresAt)
        #expect(expiresAt == ProcessorHarness.start.addingTimeInterval(7 * 86_400))

        harness.clock.set(expiresAt)
        #expect(await processor.capture(try Self.capture(1000), timeout: callerTimeout) == .declined(.authorizationExpired))
        let refused = try #require(try harness.entries(reference: "att_1").last)
        #expect(refused.operation == .capture && refused.declineCode == .authorizationExpired)
        // Releasing an expired authorization is harmless and allowed.
        #expect(await processor.void(reference: "att_1", timeout: callerTimeout).approval != nil)
    }

    @Test func captureJustBeforeTheWindowEndsSucceeds() async throws {
        let harness = try ProcessorHarness()
        let approval = try #require(try await harness.processor.approvedAuthorization("att_1"))
        harness.clock.set(try #require(approval.expiresAt).addingTimeInterval(-1))
        #expect(await harness.processor.capture(try Self.capture(1000), timeout: callerTimeout).approval != nil)
    }

    @Test func theAuthorizationWindowIsConfigurable() async throws {
        let harness = try ProcessorHarness(configuration: MockProcessorConfiguration(authorizationWindow: .seconds(3600)))
        let approval = try #require(try await harness.processor.approvedAuthorization("att_1"))
        #expect(approval.expiresAt == ProcessorHarness.start.addingTimeInterval(3600))
        harness.clock.advance(by: 3600)
        #expect(await harness.processor.capture(try Self.capture(1000), timeout: callerTimeout) == .declined(.authorizationExpired))
    }
}
