import Foundation
import PayPanel
import TestSupport
import Testing

/// What an idempotency row keeps is the library's own typed, versioned format
/// (`StoredPaymentResult`), never a front end's rendering: every case round-trips, a row of the
/// old JSON form (version 0) replays the same bytes as before, and a version this build does
/// not know is refused, not misread.
@Suite struct StoredPaymentResultTests {
    /// An outcome with an attempt that failed (with its sheet) and a refund: every optional part.
    static func richOutcome() throws -> (PaymentIntent, Attempt, Refund) {
        let start = Date(timeIntervalSince1970: 1_795_000_000.123)
        let amount = Amount(minorUnits: 1250, currency: try Currency(code: "EUR"))
        let failure = PaymentFailure(code: .cardDeclined, declineCode: DeclineCode("insufficient_funds"), message: "declined", attemptID: "att_1")
        let intent = PaymentIntent(
            id: "pi_1", amount: amount, captureMethod: .manual, orderReference: "order-7", status: .processing,
            amountAuthorized: 1250, amountCaptured: 1000, amountRefunded: 100, amountRefundPending: 50,
            captureBefore: start.addingTimeInterval(86_400), attemptCount: 2, currentAttemptID: "att_1",
            inFlight: InFlightOperation(
                kind: .void, attemptID: "att_1", amount: 250, voidPurpose: .reversal, startedAt: start,
                outcomeUnknownSince: start.addingTimeInterval(1), reconciliationLookups: 3, processorRetries: 1),
            lastError: failure, cancellationReason: .abandoned, version: 9, createdAt: start, updatedAt: start.addingTimeInterval(2),
            metadata: try Metadata(["order": "7", "shop": "north"]))
        let card = try #require(CardSummary(network: .visa, last4: "4242", expiryMonth: 12, expiryYear: 2030, eciPresent: true))
        let attempt = Attempt(
            id: "att_1", intentID: "pi_1", sequence: 2, status: .failed, source: .applePay, card: card, amount: amount,
            approvedAmount: Amount(minorUnits: 1200, currency: amount.currency), processorID: "ch_1", failure: failure,
            sheet: .answered(.failure, deadline: start.addingTimeInterval(30)), createdAt: start, updatedAt: start)
        let refund = Refund(
            id: "re_1", intentID: "pi_1", attemptID: "att_1", amount: Amount(minorUnits: 100, currency: amount.currency),
            status: .pending, reason: .requestedByCustomer, processorAccepted: true, processorID: "rf_1", failureCode: nil,
            outcomeUnknownSince: start, reconciliationLookups: 2, processorRetries: 4, createdAt: start, updatedAt: start)
        return (intent, attempt, refund)
    }

    @Test func everyCaseRoundTrips() throws {
        let (intent, attempt, refund) = try Self.richOutcome()
        let bare = Attempt(
            id: "att_2", intentID: "pi_1", sequence: 1, status: .authorizing, source: .card,
            card: try #require(CardSummary(network: nil, last4: "0005")), amount: attempt.amount,
            sheet: .awaitingAnswer(deadline: attempt.createdAt), createdAt: attempt.createdAt, updatedAt: attempt.updatedAt)
        let payloads: [IdempotentPayload] = [
            .intent(intent),
            .outcome(intent: intent, attempt: attempt, refund: refund),
            .outcome(intent: intent, attempt: bare, refund: nil),
            .outcome(intent: intent, attempt: nil, refund: nil),
            .httpResponse(status: 402, body: ["error": ["code": "card_declined"]]),
        ]
        for payload in payloads {
            let text = StoredPaymentResult.encode(payload)
            #expect(try StoredPaymentResult.decode(text) == payload, "\(text)")
            #expect(text.hasPrefix(#"{"payload":{"#) && text.hasSuffix(#""resultVersion":1}"#), "\(text)")
        }
    }

    /// The stored text is the format's own fields: none of the keys only a front end renders
    /// (the CLI's computed `amountCapturable`, the API's `"object"`), so changing either
    /// rendering leaves stored keys as they are; and the replay is rendered anew from it.
    @Test func theStoredTextHoldsNoFrontEndRendering() throws {
        let (intent, attempt, refund) = try Self.richOutcome()
        let outcome = PaymentOutcome(intent: intent, attempt: attempt, refund: refund)
        let text = StoredPaymentResult.encode(outcome.storedPayload)
        for rendered in ["amountCapturable", "amountRefundable", "payerMessage", "\"object\"", "payment_intent", "lastError\":{\"code\""] {
            #expect(!text.contains(rendered), "\(rendered) in \(text)")
        }
        #expect(text != JSONWriter.string(outcome.json))
        guard case .outcome(let storedIntent, let storedAttempt, let storedRefund) = try StoredPaymentResult.decode(text) else {
            Issue.record("an outcome is read back as an outcome")
            return
        }
        let replay = PaymentOutcome(intent: storedIntent, attempt: storedAttempt, refund: storedRefund)
        #expect(JSONWriter.string(replay.json) == JSONWriter.string(outcome.json))
    }

    @Test func aFutureVersionIsRefusedWithWhatToDo() throws {
        let future = #"{"payload":{"kind":"intent","intent":{"id":"pi_1"}},"resultVersion":2}"#
        #expect(throws: StoredFormatError.unsupportedVersion(found: 2, newest: 1)) { try StoredPaymentResult.decode(future) }
        #expect(throws: StoredFormatError.unsupportedVersion(found: nil, newest: 1)) { try StoredPaymentResult.decode(#"{"resultVersion":"two"}"#) }
        #expect(throws: StoredFormatError.notJSON) { try StoredPaymentResult.decode("{") }
        let unknownKind = #"{"payload":{"kind":"subscription"},"resultVersion":1}"#
        #expect(throws: StoredFormatError.malformed(#"payload kind "subscription" is unknown"#)) { try StoredPaymentResult.decode(unknownKind) }

        // Through the store: the key is refused with the reason, nothing is misread or run.
        let database = try Database.openMigrated(path: ":memory:", clock: ManualClock(StorageFixtures.start))
        let store = IdempotencyStore(database: database)
        _ = try store.perform(key: "k", scope: "s", parameters: .object(JSONObject()), at: StorageFixtures.start) { _ in .succeeded(nil) }
        try database.execute("UPDATE idempotency_keys SET response = ?", [future])
        var ran = false
        let error = #expect(throws: IdempotencyError.self) {
            try store.perform(key: "k", scope: "s", parameters: .object(JSONObject()), at: StorageFixtures.start) { _ in
                ran = true
                return .succeeded(nil)
            }
        }
        #expect(!ran)
        #expect(error?.code == "idempotency_result_unreadable")
        #expect(error?.message == #"the stored result for idempotency key "k" cannot be read (it is in stored format version 2, and this PayPanel reads versions 0 to 1: run the version that stored it or a newer one): use a new key"#)
    }

    /// A key stored by the previous program (the outcome's JSON, version 0) replays the very
    /// bytes the first run returned, as does a key stored now.
    @Test func aVersion0RowReplaysTheSameBytes() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let submission = try CheckoutHarness.card(intent.id, "4000000000009995")
        let first = try await harness.service.authorize(submission, idempotencyKey: "k-old")
        let database = try Database.openMigrated(path: harness.databasePath, set: .main, clock: ManualClock(CheckoutHarness.start))
        let typed = try #require(try database.queryFirst("SELECT response FROM idempotency_keys") { $0.string(0) })
        #expect(typed.contains(#""resultVersion":1"#))
        let replayOfTyped = try await harness.service.authorize(submission, idempotencyKey: "k-old")
        #expect(replayOfTyped.replayed && JSONWriter.string(replayOfTyped.json) == JSONWriter.string(first.json))

        // What the previous program stored for the same run: the outcome's JSON.
        try database.execute("UPDATE idempotency_keys SET response = ?", [JSONWriter.string(first.json)])
        let replayOfOld = try await harness.service.authorize(submission, idempotencyKey: "k-old")
        #expect(replayOfOld.replayed && JSONWriter.string(replayOfOld.json) == JSONWriter.string(first.json))
        #expect(harness.processor.calls.count == 1)
    }
}
