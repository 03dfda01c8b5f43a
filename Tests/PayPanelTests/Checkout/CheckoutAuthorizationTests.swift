import Foundation
import MockProcessor
import PayPanel
import TestSupport
import Testing

/// The authorization rows of the DESIGN §5 trigger table, driven through `PaymentService`
/// against the mock processor, with both ledgers compared after every step.
@Suite struct CheckoutAuthorizationTests {
    static let generic = "Your card was declined. Try another card."

    /// One decline row: how it is triggered, the decline code, what the payer is told.
    struct DeclineRow: Sendable, CustomStringConvertible {
        let card: String
        var holder: String? = nil
        var expiry = "12/30"
        let code: DeclineCode
        let payerMessage: String
        var description: String { "\(holder ?? card) \(expiry) → \(code)" }
    }

    static let declines: [DeclineRow] = [
        DeclineRow(card: "4000000000000002", code: .genericDecline, payerMessage: generic),
        DeclineRow(card: "4000000000009995", code: .insufficientFunds, payerMessage: "Your card has insufficient funds. Try another card."),
        DeclineRow(card: "4000000000009987", code: .lostCard, payerMessage: generic),
        DeclineRow(card: "4000000000009979", code: .stolenCard, payerMessage: generic),
        DeclineRow(card: "4000000000000069", code: .expiredCard, payerMessage: "Your card has expired. Try another card."),
        DeclineRow(card: "4000000000000119", code: .processingError, payerMessage: "An error occurred while processing your card. Try again."),
        DeclineRow(card: "4242424242424242", holder: "DO_NOT_HONOR", code: .doNotHonor, payerMessage: generic),
        // An expiry month before the processor's clock (2026-11).
        DeclineRow(card: "4242424242424242", expiry: "10/26", code: .expiredCard, payerMessage: "Your card has expired. Try another card."),
    ]

    @Test(arguments: declines)
    func aDeclineFailsTheAttemptAndShowsTheCodeToTheMerchantOnly(row: DeclineRow) async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, row.card, holder: row.holder, expiry: row.expiry))
        let attempt = try #require(outcome.attempt)
        #expect(outcome.intent.status == .requiresPaymentMethod)
        #expect(attempt.status == .failed)
        let failure = try #require(outcome.intent.lastError)
        #expect(failure.code == .cardDeclined && failure.declineCode == row.code && failure.attemptID == attempt.id)
        #expect(failure.payerMessage == row.payerMessage)
        #expect(outcome.failure == failure)
        // The merchant's JSON carries the code; the payer's text never says "lost" or "stolen".
        #expect(outcome.json["intent"]?["lastError"]?["declineCode"]?.stringValue == row.code.rawValue)
        #expect(!failure.payerMessage.lowercased().contains("lost") && !failure.payerMessage.lowercased().contains("stolen"))
        #expect(PaymentService.idempotentResult(outcome) == .failed(code: "card_declined", message: failure.message, payload: outcome.storedPayload))
        #expect(try harness.ledgerSummary(attempt.id) == ["authorize:declined"])
        #expect(try harness.ledger(attempt.id).first?.declineCode == row.code)
        try harness.check(settled: true)
    }

    @Test(arguments: ["4242424242424242", "5555555555554444", "378282246310005", "6011111111111117", "4111111111111111"])
    func anApprovingCardWaitsForCaptureUntilTheProcessorsExpiry(card: String) async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, card))
        let attempt = try #require(outcome.attempt)
        #expect(outcome.intent.status == .requiresCapture && attempt.status == .authorized)
        #expect(outcome.intent.amountCapturable == 1000 && outcome.intent.lastError == nil)
        #expect(outcome.intent.captureBefore == CheckoutHarness.start.addingTimeInterval(7 * 24 * 3600))
        let entry = try #require(try harness.ledger(attempt.id).first)
        #expect(entry.operation == .authorize && entry.status == .approved && entry.expiresAt == outcome.intent.captureBefore)
        #expect(entry.last4 == String(card.suffix(4)) && attempt.processorID == entry.processorID)
        #expect(harness.elapsed == 0, "the zero-latency processor takes no time")
        try harness.check(settled: true)
    }

    @Test func automaticCaptureCapturesTheApprovalAtOnce() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent(capture: .automatic)
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        let attempt = try #require(outcome.attempt)
        #expect(outcome.intent.status == .succeeded && attempt.status == .captured && outcome.intent.amountCaptured == 1000)
        #expect(try harness.ledgerSummary(attempt.id) == ["authorize:approved", "capture:approved"])
        try harness.check(settled: true)
    }

    @Test func aDeclineThenAnotherCardIsANewAttemptWithItsOwnReference() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let declined = try await harness.service.authorize(try CheckoutHarness.card(intent.id, "4000000000009995"))
        try harness.check()
        #expect(declined.intent.lastError?.declineCode == .insufficientFunds)
        #expect(declined.intent.lastError?.declineCode?.isRetryableWithAnotherCard == true)
        let approved = try await harness.service.authorize(try CheckoutHarness.card(intent.id, "5555555555554444"))
        try harness.check(settled: true)
        let first = try #require(declined.attempt)
        let second = try #require(approved.attempt)
        #expect(first.id != second.id && second.sequence == 2)
        #expect(approved.intent.status == .requiresCapture && approved.intent.lastError == nil && approved.intent.attemptCount == 2)
        #expect(try harness.ledgerSummary(first.id) == ["authorize:declined"])
        #expect(try harness.ledgerSummary(second.id) == ["authorize:approved"])
        #expect(try harness.machine(intent.id).attempts.map(\.status) == [.failed, .authorized])
    }

    @Test func anApprovedIntentTakesNoFurtherCard() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        _ = try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        let error = await #expect(throws: PaymentRejection.self) {
            try await harness.service.authorize(try CheckoutHarness.card(intent.id, "5555555555554444"))
        }
        #expect(error?.code == "payment_intent_unexpected_state")
        #expect(try harness.ledger().count == 1, "the second card never reached the processor")
        try harness.check(settled: true)
    }

    @Test func theSameCryptogramTwiceIsDeclinedAndTheSheetIsToldAtOnce() async throws {
        let harness = try CheckoutHarness()
        let first = try await harness.createIntent()
        let second = try await harness.createIntent()
        let approved = try await harness.service.authorize(try CheckoutHarness.applePay(first.id))
        #expect(approved.intent.status == .requiresCapture && approved.sheetAnswer == .success)
        let replayed = try await harness.service.authorize(try CheckoutHarness.applePay(second.id))
        #expect(replayed.intent.status == .requiresPaymentMethod && replayed.sheetAnswer == .failure)
        #expect(replayed.intent.lastError?.declineCode == .invalidCryptogram)
        #expect(replayed.intent.lastError?.payerMessage == "This payment could not be completed. Try again.")
        #expect(replayed.attempt?.card.eciPresent == true && replayed.attempt?.source == .applePay)
        #expect(harness.elapsed == 0)
        try harness.check(settled: true)
    }

    @Test func aStaleCryptogramIsDeclinedExpired() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let stale = CheckoutHarness.start.addingTimeInterval(-11 * 60)
        let outcome = try await harness.service.authorize(try CheckoutHarness.applePay(intent.id, generatedAt: stale))
        #expect(outcome.intent.lastError?.declineCode == .expiredCryptogram && outcome.sheetAnswer == .failure)
        #expect(try harness.ledger(outcome.attempt?.id).first?.declineCode == .expiredCryptogram)
        try harness.check(settled: true)
    }

    @Test func aTokenForAnotherAmountIsRefusedBeforeTheProcessor() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let error = await #expect(throws: PaymentRejection.self) {
            try await harness.service.authorize(
                try CheckoutHarness.applePay(intent.id, amount: Amount(minorUnits: 2000, currency: CheckoutHarness.usd)))
        }
        #expect(error?.code == "amount_mismatch")
        #expect(try harness.ledger().isEmpty && harness.processor.calls.isEmpty)
        #expect(try harness.machine(intent.id).intent.status == .requiresPaymentMethod)
        try harness.check(settled: true)
    }

    @Test func theAttemptLimitStopsCardTesting() async throws {
        let harness = try CheckoutHarness(policy: PaymentPolicy(maximumAttempts: 2))
        let intent = try await harness.createIntent()
        for _ in 0..<2 {
            _ = try await harness.service.authorize(try CheckoutHarness.card(intent.id, "4000000000000002"))
        }
        let error = await #expect(throws: PaymentRejection.self) {
            try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        }
        #expect(error?.code == "attempt_limit_reached")
        #expect(try harness.ledger().count == 2)
        try harness.check(settled: true)
    }
}
