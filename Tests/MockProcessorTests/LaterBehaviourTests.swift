import Foundation
import MockProcessor
import PayPanel
import Testing

/// The "later" column of the trigger table: 3-D Secure completion and the capture, void and
/// refund triggers, each checked through the answer, the ledger and the lookup.
@Suite struct LaterBehaviourTests {
    struct ChallengeCase: CustomTestStringConvertible, Sendable {
        let card: String
        let passed: Bool
        /// nil: approved; otherwise the decline code.
        let declineCode: String?
        var testDescription: String { "\(card.suffix(4)) \(passed ? "passed" : "failed")" }
    }

    static let challengeCases: [ChallengeCase] = [
        ChallengeCase(card: "4000002760003184", passed: true, declineCode: nil),
        ChallengeCase(card: "4000002760003184", passed: false, declineCode: "authentication_failed"),
        ChallengeCase(card: "4000008260003178", passed: true, declineCode: "insufficient_funds"),
        ChallengeCase(card: "4000008260003178", passed: false, declineCode: "authentication_failed"),
        ChallengeCase(card: "4000008400001629", passed: true, declineCode: "generic_decline"),
        ChallengeCase(card: "4000008400001629", passed: false, declineCode: "authentication_failed"),
    ]

    @Test(arguments: challengeCases)
    func completingAChallengeSettlesTheAuthorization(_ testCase: ChallengeCase) async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        let request = Requests.authorization("att_1", method: try Requests.card(testCase.card))
        #expect(await processor.authorize(request, timeout: callerTimeout) == .challengeRequired)
        harness.clock.advance(by: 30)

        let outcome = await processor.completeChallenge(reference: "att_1", passed: testCase.passed, timeout: callerTimeout)

        #expect(outcome.declineCode?.rawValue == testCase.declineCode)
        let entry = try #require(try harness.entries().first)
        #expect(try harness.entries().count == 1)
        #expect(entry.status == (testCase.declineCode == nil ? .approved : .declined))
        #expect(entry.createdAt == ProcessorHarness.start)
        #expect(entry.updatedAt == ProcessorHarness.start.addingTimeInterval(30))
        if testCase.declineCode == nil {
            // The capture window starts when the challenge approved it.
            #expect(outcome.approval?.expiresAt == ProcessorHarness.start.addingTimeInterval(30 + 7 * 86_400))
        }
        #expect(await processor.lookup(reference: "att_1", operation: .authorize, timeout: callerTimeout) == .found(outcome))
        // Completing again (the caller retrying) answers the same; a challenge cannot be re-run.
        #expect(await processor.completeChallenge(reference: "att_1", passed: !testCase.passed, timeout: callerTimeout) == outcome)
    }

    @Test func completingAChallengeOfAnUnknownReferenceIsRefused() async throws {
        let harness = try ProcessorHarness()
        let outcome = await harness.processor.completeChallenge(reference: "att_nope", passed: true, timeout: callerTimeout)
        #expect(outcome == .declined(.authorizationNotFound))
        #expect(try harness.entries().isEmpty)
    }

    @Test func captureFailDeclinesEveryCaptureButTheAuthorizationCanStillBeVoided() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1", holder: "CAPTURE_FAIL") != nil)
        let capture = CaptureRequest(reference: "att_1", amount: Requests.amount(1000))
        #expect(await processor.capture(capture, timeout: callerTimeout) == .declined(.captureFailed))
        #expect(await processor.capture(capture, timeout: callerTimeout) == .declined(.captureFailed))
        #expect(await processor.lookup(reference: "att_1", operation: .capture, timeout: callerTimeout) == .found(.declined(.captureFailed)))
        #expect(await processor.void(reference: "att_1", timeout: callerTimeout).approval != nil)
        let operations = try harness.entries().map { "\($0.operation.rawValue):\($0.status.rawValue)" }
        #expect(operations == ["authorize:approved", "capture:declined", "capture:declined", "void:approved"])
    }

    @Test func captureFailLateDeclinesTheCaptureAndLosesTheAnswer() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1", holder: "CAPTURE_FAIL_LATE") != nil)
        let capture = CaptureRequest(reference: "att_1", amount: Requests.amount(1000))
        #expect(await processor.capture(capture, timeout: callerTimeout).isUnknown)
        #expect(harness.elapsed == 25)
        #expect(await processor.lookup(reference: "att_1", operation: .capture, timeout: callerTimeout) == .found(.declined(.captureFailed)))
        #expect(await processor.void(reference: "att_1", timeout: callerTimeout).approval != nil)
        let operations = try harness.entries().map { "\($0.operation.rawValue):\($0.status.rawValue)" }
        #expect(operations == ["authorize:approved", "capture:declined", "void:approved"])
    }

    @Test func captureTimeoutCapturesButTheAnswerIsLost() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1", holder: "CAPTURE_TIMEOUT") != nil)
        let capture = CaptureRequest(reference: "att_1", amount: Requests.amount(600))

        #expect(await processor.capture(capture, timeout: callerTimeout).isUnknown)
        #expect(harness.elapsed == 25)

        guard case .found(.approved(let approval)) = await processor.lookup(reference: "att_1", operation: .capture, timeout: callerTimeout)
        else {
            Issue.record("lookup(capture) should find the capture")
            return
        }
        #expect(approval.amount == Requests.amount(600))
        // A retry of the same capture gets the answer, and captures nothing more.
        #expect(await processor.capture(capture, timeout: callerTimeout) == .approved(approval))
        #expect(try harness.entries(reference: "att_1").filter { $0.operation == .capture }.count == 1)
    }

    @Test func voidFailDeclinesEveryVoidButCaptureWorks() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1", holder: "VOID_FAIL") != nil)
        #expect(await processor.void(reference: "att_1", timeout: callerTimeout) == .declined(.voidFailed))
        #expect(await processor.lookup(reference: "att_1", operation: .void, timeout: callerTimeout) == .found(.declined(.voidFailed)))
        #expect(await processor.capture(CaptureRequest(reference: "att_1", amount: Requests.amount(1000)), timeout: callerTimeout).approval != nil)
    }

    @Test func refundAsyncIsPendingThenSucceedsAfterTheSettlementDelay() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1", holder: "REFUND_ASYNC") != nil)
        #expect(await processor.capture(CaptureRequest(reference: "att_1", amount: Requests.amount(1000)), timeout: callerTimeout).approval != nil)
        let refund = RefundRequest(reference: "att_1", refundReference: "rf_1", amount: Requests.amount(400))

        #expect(await processor.refund(refund, timeout: callerTimeout) == .pending)
        #expect(await processor.lookup(reference: "rf_1", operation: .refund, timeout: callerTimeout) == .found(.pending))
        #expect(try harness.entries(reference: "rf_1").first?.status == .pending)
        // A pending refund counts against what may still be refunded.
        let tooMuch = RefundRequest(reference: "att_1", refundReference: "rf_2", amount: Requests.amount(601))
        #expect(await processor.refund(tooMuch, timeout: callerTimeout) == .declined(.amountTooLarge))

        harness.clock.advance(by: 60)
        guard case .found(.approved(let approval)) = await processor.lookup(reference: "rf_1", operation: .refund, timeout: callerTimeout)
        else {
            Issue.record("the refund should have settled")
            return
        }
        #expect(approval.amount == Requests.amount(400))
        let settled = try #require(try harness.entries(reference: "rf_1").first)
        #expect(settled.status == .approved)
        #expect(settled.updatedAt == ProcessorHarness.start.addingTimeInterval(60))
        // A replay of the refund now answers with the settled result.
        #expect(await processor.refund(refund, timeout: callerTimeout) == .approved(approval))
    }

    @Test func refundFailDeclinesEveryRefund() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1", holder: "REFUND_FAIL") != nil)
        #expect(await processor.capture(CaptureRequest(reference: "att_1", amount: Requests.amount(1000)), timeout: callerTimeout).approval != nil)
        let refund = RefundRequest(reference: "att_1", refundReference: "rf_1", amount: Requests.amount(400))
        #expect(await processor.refund(refund, timeout: callerTimeout) == .declined(.refundFailed))
        #expect(await processor.lookup(reference: "rf_1", operation: .refund, timeout: callerTimeout) == .found(.declined(.refundFailed)))
        let again = RefundRequest(reference: "att_1", refundReference: "rf_2", amount: Requests.amount(400))
        #expect(await processor.refund(again, timeout: callerTimeout) == .declined(.refundFailed))
    }

    @Test func lookupOfOperationsThatNeverHappenedFindsNothing() async throws {
        let harness = try ProcessorHarness()
        let processor = harness.processor
        #expect(try await processor.approvedAuthorization("att_1") != nil)
        for operation in [ProcessorOperation.capture, .void] {
            #expect(await processor.lookup(reference: "att_1", operation: operation, timeout: callerTimeout) == .notFound)
        }
        #expect(await processor.lookup(reference: "rf_none", operation: .refund, timeout: callerTimeout) == .notFound)
    }
}
