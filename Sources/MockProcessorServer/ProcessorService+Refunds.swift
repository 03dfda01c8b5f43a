import Foundation
import MockProcessor
import PayPanel

extension ProcessorService {
    /// POST /v1/refunds — `payment_intent`, optional `amount` (the rest by default), `metadata`.
    func createRefund(_ tag: String, _ parameters: Parameters, idempotencyKey: String?) async -> Reply {
        do {
            try checkRoom(tag)
            try parameters.refuseUnknown(allowed: ["payment_intent", "amount", "metadata", "reason", "expand"])
            guard let intentID = try parameters.string("payment_intent") else { throw StripeError.missing("payment_intent") }
            guard let intent = account(tag).intents[intentID] else { throw StripeError.resourceMissing("payment_intent", intentID, param: "payment_intent") }
            guard intent.status == "succeeded" else {
                throw StripeError.unexpectedState("This PaymentIntent's status is \(intent.status); only a succeeded one can be refunded.")
            }
            let remaining = intent.amountReceived - intent.refunded
            guard remaining > 0 else {
                throw StripeError.invalidRequest("This payment has been refunded in full already.", param: "payment_intent", code: "charge_already_refunded")
            }
            let amount = try parameters.integer("amount", in: 1...99_999_999) ?? remaining
            guard amount <= remaining else {
                throw StripeError.invalidRequest("Refund amount (\(amount)) is greater than what is left to refund (\(remaining)).", param: "amount", code: "amount_too_large")
            }
            let metadata = try parameters.metadata("metadata") ?? []
            let id = Self.objectID(prefix: "re", tag: tag, idempotencyKey: idempotencyKey)
            let prefix = account(tag).ledgerPrefix
            let ledgerReference = prefix + id
            let answer = await mock.refundOverWire(
                RefundRequest(
                    reference: intent.ledgerReference(accountPrefix: prefix), refundReference: ledgerReference,
                    amount: Amount(minorUnits: amount, currency: intent.currency)),
                now: now(tag))
            let status: String
            var failure: String?
            var delay = Duration.zero
            switch answer {
            case .answer(let outcome, let after):
                delay = after
                switch outcome {
                case .approved: status = "succeeded"
                case .pending: status = "pending"
                case .declined(let code):
                    if let error = Self.requestError(code) { return .error(error, delay: after) }
                    status = "failed"
                    failure = "unknown"
                default: status = "pending"
                }
            case .noAnswer: return .hold
            case .serverError(let after): return .error(.apiError("An internal error occurred; the refund may or may not exist: list the payment's refunds."), delay: after)
            case .refused(_, let reason, let after):
                var error = StripeError(status: .serviceUnavailable, type: "api_error", message: reason)
                error.headers = ["Retry-After": "1"]
                return .error(error, delay: after)
            }
            let refund = StoredRefund(
                id: id, paymentIntent: intentID, charge: intent.latestCharge, amount: amount, currency: intent.currency, status: status,
                failureReason: failure, metadata: metadata, created: now(tag), ledgerReference: ledgerReference)
            update(tag) { account in
                account.refunds[id] = refund
                account.refundOrder.append(id)
                if status != "failed" { account.intents[intentID]?.refunded += amount }
            }
            // REFUND_ASYNC: the caller was told `pending`; the settlement comes as a webhook.
            if status == "pending" { await emitRefundSettledEvent(tag, refund: refund) }
            return .ok(ObjectJSON.refund(refund), delay: delay)
        } catch let error as StripeError {
            return .error(error)
        } catch {
            return .error(.apiError("Unexpected failure."))
        }
    }

    /// GET /v1/refunds/{id}; a pending refund is refreshed from the ledger (it settles on the
    /// account's clock).
    func retrieveRefund(_ tag: String, id: String) async -> Reply {
        guard let refund = await refreshed(tag, id: id) else { return .error(.resourceMissing("refund", id)) }
        return .ok(ObjectJSON.refund(refund))
    }

    /// GET /v1/refunds, optionally `payment_intent=pi_…`; newest first.
    func listRefunds(_ tag: String, _ query: Parameters) async -> Reply {
        do {
            let filter = try query.string("payment_intent")
            let ids = account(tag).refundOrder.reversed().filter { id in filter == nil || account(tag).refunds[id]?.paymentIntent == filter }
            let page = try Pagination.page(ids: ids, query: query, kind: "refund")
            var data: [JSONValue] = []
            for id in page.ids {
                if let refund = await refreshed(tag, id: id) { data.append(ObjectJSON.refund(refund)) }
            }
            return .ok(ObjectJSON.list(data, hasMore: page.hasMore, url: "/v1/refunds"))
        } catch {
            return .error(error)
        }
    }

    private func refreshed(_ tag: String, id: String) async -> StoredRefund? {
        guard var refund = account(tag).refunds[id] else { return nil }
        guard refund.status == "pending" else { return refund }
        if case .found(.approved)? = try? await mock.lookupOverWire(reference: refund.ledgerReference, operation: .refund, now: now(tag)) {
            refund.status = "succeeded"
            let saved = refund
            update(tag) { $0.refunds[id] = saved }
        }
        return refund
    }
}
