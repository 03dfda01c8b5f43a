import Foundation
import MockProcessor
import PayPanel

/// The events the mock sends for what it decides *later* than its answer (docs/mock-processor.md,
/// "Webhooks"): an authorization whose answer was lost, failed with a 500 after processing, was
/// dropped or took a second or more (SLOW_<n>S); a capture whose answer was lost
/// (CAPTURE_TIMEOUT, CAPTURE_FAIL_LATE); a refund that settled (REFUND_ASYNC). Each is stored in
/// the ledger file with its deliveries in one transaction, due on the account's clock at the
/// moment the decision would have reached the caller; `WebhookSender` sends it from there.
extension ProcessorService {
    /// An answer at least this late counts as late (SLOW_<n>S, a long `--latency`).
    static let lateAnswer: Duration = .seconds(1)

    /// The event about an intent after a late authorization, if it is one the caller waits on:
    /// authorized (`payment_intent.amount_capturable_updated`), captured at once
    /// (`payment_intent.succeeded`) or declined (`payment_intent.payment_failed`).
    func emitAuthorizationEvent(_ tag: String, intentID: String, after delay: Duration) async {
        guard let intent = account(tag).intents[intentID] else { return }
        let type: String
        switch intent.status {
        case "requires_capture": type = "payment_intent.amount_capturable_updated"
        case "succeeded": type = "payment_intent.succeeded"
        case "requires_payment_method" where intent.lastPaymentError != nil: type = "payment_intent.payment_failed"
        default: return
        }
        await emit(tag, type: type, object: ObjectJSON.intent(intent, baseURL: baseURL), after: delay)
    }

    /// The event after a capture whose answer was lost: `payment_intent.succeeded`, or
    /// `payment_intent.payment_failed` carrying the capture's decline (the intent itself stays
    /// `requires_capture`, as a failed capture leaves it).
    func emitCaptureEvent(_ tag: String, intentID: String, outcome: ProcessorOutcome?, after delay: Duration) async {
        guard let intent = account(tag).intents[intentID] else { return }
        switch outcome {
        case .approved?:
            await emit(tag, type: "payment_intent.succeeded", object: ObjectJSON.intent(intent, baseURL: baseURL), after: delay)
        case .declined(let code)?:
            var failed = intent
            failed.lastPaymentError = .orderedObject([
                ("type", "card_error"), ("code", "card_declined"), ("decline_code", .string(code.rawValue)),
                ("message", .string("The capture was refused (\(code.rawValue)).")),
            ])
            await emit(tag, type: "payment_intent.payment_failed", object: ObjectJSON.intent(failed, baseURL: baseURL), after: delay)
        default:
            return
        }
    }

    /// `refund.updated` with the refund `succeeded`, due when the pending refund settles.
    func emitRefundSettledEvent(_ tag: String, refund: StoredRefund) async {
        var settled = refund
        settled.status = "succeeded"
        await emit(tag, type: "refund.updated", object: ObjectJSON.refund(settled), after: mock.configuration.refundSettlementDelay)
    }

    /// Stores the event with its deliveries (none when no endpoint of the account wants it).
    /// Best effort for the answer: a failure to store an event must not fail the payment call.
    private func emit(_ tag: String, type: String, object: JSONValue, after delay: Duration) async {
        let created = now(tag).addingTimeInterval(delay.timeInterval)
        let id = Self.objectID(prefix: "evt", tag: tag, idempotencyKey: nil)
        let event = Self.eventJSON(id: id, type: type, created: created, object: object)
        _ = try? await mock.enqueueWebhookEvent(
            id: id, account: tag, type: type, body: Array(JSONWriter.string(event).utf8), createdAt: created, dueAt: created)
    }

    /// Stripe's event envelope.
    static func eventJSON(id: String, type: String, created: Date, object: JSONValue) -> JSONValue {
        .orderedObject([
            ("id", .string(id)), ("object", "event"), ("api_version", "2024-06-20"), ("created", ObjectJSON.unix(created)),
            ("data", .orderedObject([("object", object)])), ("livemode", false), ("pending_webhooks", 1),
            ("request", .orderedObject([("id", .null), ("idempotency_key", .null)])), ("type", .string(type)),
        ])
    }

}
