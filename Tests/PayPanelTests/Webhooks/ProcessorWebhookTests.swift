import Foundation
import MockProcessor
import PayPanel
import TestSupport
import Testing

/// Processor webhooks applied as reconciliation answers: an unknown authorization settled by
/// the webhook before the worker's lookup (which then finds nothing to do), duplicates, events
/// about attempts PayPanel does not know, refunds settling, and events that do not answer the
/// call in flight.
@Suite struct ProcessorWebhookTests {
    static func event(
        id: String, type: String, attemptID: String, status: String, amount: Int64 = 1000, capturable: Int64 = 0, received: Int64 = 0,
        processorID: String = "pi_processor_1", decline: String? = nil
    ) throws -> ProcessorWebhookEvent {
        var object: [(String, JSONValue)] = [
            ("object", "payment_intent"), ("id", .string(processorID)), ("amount", .number(amount)), ("amount_capturable", .number(capturable)),
            ("amount_received", .number(received)), ("currency", "usd"), ("status", .string(status)),
            ("metadata", .orderedObject([("attempt_id", .string(attemptID))])),
        ]
        if let decline { object.append(("last_payment_error", .orderedObject([("code", "card_declined"), ("decline_code", .string(decline))]))) }
        let body = JSONValue.orderedObject([
            ("id", .string(id)), ("object", "event"), ("type", .string(type)), ("created", 1_795_939_200),
            ("data", .orderedObject([("object", .orderedObject(object))])),
        ])
        return try ProcessorWebhookEvent(body: Array(JSONWriter.string(body).utf8))
    }

    /// An intent whose authorization answer was lost: processing, outcome unknown.
    static func unknownAuthorization(_ harness: CheckoutHarness) async throws -> (PaymentIntent, String) {
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: "TIMEOUT_THEN_APPROVED"))
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.status == .processing && machine.intent.inFlight?.outcomeUnknownSince != nil)
        return (intent, try #require(outcome.attempt?.id))
    }

    /// The processor's own id for the approval (what it would put in its webhook).
    static func processorID(_ harness: CheckoutHarness, _ attemptID: String) async throws -> String {
        guard case .found(.approved(let approval)) = await harness.mock.lookup(reference: attemptID, operation: .authorize, timeout: .seconds(5)) else {
            Issue.record("the mock processor has no approval for \(attemptID)")
            return ""
        }
        return approval.processorID
    }

    @Test func aWebhookSettlesAnUnknownAuthorizationBeforeTheWorkerAndTheyNeverConflict() async throws {
        let harness = try CheckoutHarness()
        let (intent, attemptID) = try await Self.unknownAuthorization(harness)
        let processorID = try await Self.processorID(harness, attemptID)
        let event = try Self.event(
            id: "evt_proc_1", type: "payment_intent.amount_capturable_updated", attemptID: attemptID, status: "requires_capture", capturable: 1000,
            processorID: processorID)
        let result = try await harness.service.applyProcessorWebhook(event)
        #expect(result.disposition == .applied && result.intentID == intent.id)
        let settled = try harness.machine(intent.id)
        #expect(settled.intent.status == .requiresCapture && settled.intent.amountCapturable == 1000)
        #expect(settled.intent.inFlight == nil)
        let lookupsBefore = harness.processor.calls.filter { $0.operation == "lookup" }.count

        // The worker comes next: nothing is waiting any more, nothing changes.
        let report = try await harness.service.reconcile()
        #expect(report.lookups.isEmpty)
        #expect(harness.processor.calls.filter { $0.operation == "lookup" }.count == lookupsBefore)
        #expect(try harness.machine(intent.id) == settled)

        // The same event again: acknowledged as a duplicate, nothing changes.
        #expect(try await harness.service.applyProcessorWebhook(event).disposition == .duplicate)
        #expect(try harness.machine(intent.id) == settled)
        try harness.check(settled: true)
    }

    @Test func whenTheWorkerWinsTheWebhookChangesNothing() async throws {
        let harness = try CheckoutHarness()
        let (intent, attemptID) = try await Self.unknownAuthorization(harness)
        _ = try await harness.service.reconcile()
        let settled = try harness.machine(intent.id)
        #expect(settled.intent.status == .requiresCapture)
        let event = try Self.event(
            id: "evt_proc_2", type: "payment_intent.amount_capturable_updated", attemptID: attemptID, status: "requires_capture", capturable: 1000)
        let result = try await harness.service.applyProcessorWebhook(event)
        #expect(result.disposition == .ignored)
        #expect(try harness.machine(intent.id) == settled)
        try harness.check(settled: true)
    }

    @Test func aDeclineByWebhookSendsThePayerBackToChooseAnotherCard() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: "TIMEOUT_THEN_DECLINED"))
        let attemptID = try #require(outcome.attempt?.id)
        let event = try Self.event(
            id: "evt_proc_3", type: "payment_intent.payment_failed", attemptID: attemptID, status: "requires_payment_method",
            decline: "insufficient_funds")
        #expect(try await harness.service.applyProcessorWebhook(event).disposition == .applied)
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.status == .requiresPaymentMethod && machine.intent.lastError?.declineCode?.rawValue == "insufficient_funds")
    }

    @Test func anEventAboutAnAttemptPayPanelDoesNotKnowIsRecordedAndChangesNothing() async throws {
        let harness = try CheckoutHarness()
        let (intent, _) = try await Self.unknownAuthorization(harness)
        let before = try harness.machine(intent.id)
        let stranger = try Self.event(
            id: "evt_proc_4", type: "payment_intent.succeeded", attemptID: "att_ZZZZZZZZZZZZZZZZZZZZZZZZ", status: "succeeded", received: 1000)
        let result = try await harness.service.applyProcessorWebhook(stranger)
        #expect(result.disposition == .ignored && result.intentID == nil)
        #expect(try await harness.service.applyProcessorWebhook(stranger).disposition == .duplicate, "it was recorded in the inbox")
        #expect(try harness.machine(intent.id) == before)
        // A type PayPanel does not act on is recorded too.
        let other = try ProcessorWebhookEvent(body: Array(#"{"id":"evt_proc_5","object":"event","type":"customer.created","data":{"object":{"object":"customer","id":"cus_1"}}}"#.utf8))
        #expect(try await harness.service.applyProcessorWebhook(other).disposition == .ignored)
    }

    /// Another integration on the same processor account makes intents and refunds PayPanel
    /// never saw: their events are the processor's normal traffic, acknowledged and recorded as
    /// ignored (refusing them would make the processor deliver them again for days).
    @Test(arguments: [
        (#"{"id":"evt_f1","type":"payment_intent.succeeded","data":{"object":{"object":"payment_intent","id":"pi_1","amount":1,"currency":"usd","status":"succeeded","metadata":{}}}}"#, "payment intent"),
        (#"{"id":"evt_f2","type":"payment_intent.created","data":{"object":{"object":"payment_intent","id":"pi_2","status":"requires_payment_method"}}}"#, "payment intent"),
        (#"{"id":"evt_f3","type":"payment_intent.succeeded","data":{"object":{"object":"payment_intent","id":"pi_3","metadata":{"attempt_id":"order-77"}}}}"#, "payment intent"),
        (#"{"id":"evt_f4","type":"refund.updated","data":{"object":{"object":"refund","id":"re_4","amount":100,"currency":"usd","status":"succeeded","metadata":{"order":"9"}}}}"#, "refund"),
        (#"{"id":"evt_f5","type":"charge.refunded","data":{"object":{"object":"charge","id":"ch_5","refunds":{"data":[{"object":"refund","id":"re_5","status":"succeeded"}]}}}}"#, "refunds"),
    ])
    func anEventAboutAnObjectPayPanelDidNotCreateIsRecordedAsIgnored(body: String, object: String) async throws {
        let harness = try CheckoutHarness()
        let event = try ProcessorWebhookEvent(body: Array(body.utf8))
        #expect(event.findings.isEmpty)
        let result = try await harness.service.applyProcessorWebhook(event)
        #expect(result.disposition == .ignored && result.intentID == nil)
        #expect(result.reason?.contains(object) == true && result.reason?.contains("one of PayPanel's") == true, "\(result)")
        #expect(try await harness.service.applyProcessorWebhook(event).disposition == .duplicate, "it was recorded in the inbox")
    }

    @Test func anEventThatDoesNotAnswerTheCallInFlightIsIgnored() async throws {
        let harness = try CheckoutHarness()
        let (intent, attemptID) = try await Self.unknownAuthorization(harness)
        let before = try harness.machine(intent.id)
        let canceled = try Self.event(id: "evt_proc_6", type: "payment_intent.canceled", attemptID: attemptID, status: "canceled")
        #expect(try await harness.service.applyProcessorWebhook(canceled).disposition == .ignored)
        #expect(try harness.machine(intent.id) == before)
    }

    @Test func aPendingRefundIsSettledByTheRefundEvent() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.capturedIntent(holder: "REFUND_ASYNC")
        let outcome = try await harness.service.refund(intent.id, amount: 2500)
        let refund = try #require(outcome.refund)
        #expect(refund.status == .pending)
        let body = """
            {"id":"evt_proc_7","object":"event","type":"charge.refunded","data":{"object":{"object":"charge","id":"ch_1",
            "refunds":{"data":[{"object":"refund","id":"re_processor_1","amount":2500,"currency":"usd","status":"succeeded",
            "metadata":{"refund_id":"\(refund.id)"}}]}}}}
            """
        let result = try await harness.service.applyProcessorWebhook(try ProcessorWebhookEvent(body: Array(body.utf8)))
        #expect(result.disposition == .applied)
        let machine = try harness.machine(intent.id)
        #expect(machine.refunds.first?.status == .succeeded && machine.intent.amountRefunded == 2500)
    }

    @Test(arguments: [
        #"{"object":"event","type":"payment_intent.succeeded","data":{"object":{}}}"#,
        #"{"id":"evt_1","object":"event","type":"payment_intent.succeeded"}"#,
        #"{"id":"evt_1","type":"payment_intent.succeeded","data":{"object":{"object":"payment_intent","id":"pi_1","currency":"usd","status":"succeeded","metadata":{"attempt_id":"att_AAAAAAAAAAAAAAAAAAAAAAAA"}}}}"#,
        #"{"id":"4242424242424242","type":"x.y","data":{"object":{}}}"#,
        "not json",
    ])
    /// Malformed: no id, type or data.object; an id that holds a card number; or an event about
    /// one of PayPanel's own objects (its attempt id in the metadata) that lacks what it needs.
    func malformedEventsAreRefusedNamingTheField(_ body: String) {
        #expect(throws: WebhookStoreError.self) { try ProcessorWebhookEvent(body: Array(body.utf8)) }
    }
}
