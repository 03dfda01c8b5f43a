import Foundation
import MockProcessor
import PayPanel

extension ProcessorService {
    /// The reasons Stripe takes on a refund.
    static let refundReasons = ["duplicate", "fraudulent", "requested_by_customer"]

    /// POST /v1/refunds — `payment_intent`, optional `amount` (the rest by default), `metadata`,
    /// `reason` (kept on the refund).
    func createRefund(_ tag: String, _ parameters: Parameters, idempotencyKey: String?) async -> Reply {
        do {
            try checkRoom(tag)
            guard let intentID = try parameters.string("payment_intent") else { throw StripeError.missing("payment_intent") }
            guard let intent = account(tag).intents[intentID] else { throw StripeError.resourceMissing("payment_intent", intentID, param: "payment_intent") }
            guard intent.status == "succeeded" else {
                throw StripeError.unexpectedState("This PaymentIntent's status is \(intent.status); only a succeeded one can be refunded.")
            }
            let id = Self.objectID(prefix: "re", tag: tag, idempotencyKey: idempotencyKey)
            // A retry whose first answer reached the account store but not the key's record (a crash
            // in between) gets that refund back rather than a second one.
            if let made = account(tag).refunds[id], made.status != "pending" { return .ok(ObjectJSON.refund(made)) }
            // A retry of a request interrupted by a crash finds its own pending refund (same id,
            // from the same key): it is not counted twice, and the ledger replays its answer.
            let interrupted = account(tag).refunds[id].map { $0.status == "pending" ? $0.amount : 0 } ?? 0
            let remaining = intent.amountReceived - intent.refunded + interrupted
            guard remaining > 0 else {
                throw StripeError.invalidRequest("This payment has been refunded in full already.", param: "payment_intent", code: "charge_already_refunded")
            }
            let amount = try parameters.integer("amount", in: 1...99_999_999) ?? remaining
            guard amount <= remaining else {
                throw StripeError.invalidRequest("Refund amount (\(amount)) is greater than what is left to refund (\(remaining)).", param: "amount", code: "amount_too_large")
            }
            let metadata = try parameters.metadata("metadata") ?? []
            let reason = try parameters.string("reason")
            if let reason, !Self.refundReasons.contains(reason) {
                throw StripeError.invalidRequest("reason must be one of \(Self.refundReasons.joined(separator: ", ")).", param: "reason")
            }
            let prefix = account(tag).ledgerPrefix
            let ledgerReference = prefix + id
            // Written ahead of the ledger call, as `pending`: a crash after the ledger refunded
            // but before the answer was written would otherwise lose the refund while the money
            // moved, and a backend that lists the payment's refunds to learn what happened (an
            // unknown outcome) would find nothing. `refreshed` settles it from the ledger.
            let pending = StoredRefund(
                id: id, paymentIntent: intentID, charge: intent.latestCharge, amount: amount, currency: intent.currency, status: "pending",
                failureReason: nil, metadata: metadata, created: account(tag).refunds[id]?.created ?? now(tag), ledgerReference: ledgerReference,
                reason: reason)
            update(tag) { account in
                account.intents[intentID]?.refunded += amount - interrupted
                account.refunds[id] = pending
            }
            writeAhead(tag)
            refundsInFlight.insert(id)
            defer { refundsInFlight.remove(id) }
            let request = RefundRequest(
                reference: intent.ledgerReference(accountPrefix: prefix), refundReference: ledgerReference,
                amount: Amount(minorUnits: amount, currency: intent.currency))
            let answer = onMock(at: tag) { mock, now in mock.refundOverWire(request, now: now) }
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
                    if let error = Self.requestError(code) {
                        forgetRefund(tag, id: id)
                        return .error(error, delay: after)
                    }
                    status = "failed"
                    failure = "unknown"
                default: status = "pending"
                }
            // The ledger may have it: the pending refund stays, and listing settles it.
            case .noAnswer: return .hold
            case .serverError(let after): return .error(.apiError("An internal error occurred; the refund may or may not exist: list the payment's refunds."), delay: after)
            case .refused(_, let reason, let after):
                // Refused before the ledger looked at it: no refund exists.
                forgetRefund(tag, id: id)
                var error = StripeError(status: .serviceUnavailable, type: "api_error", message: reason)
                error.headers = ["Retry-After": "1"]
                return .error(error, delay: after)
            }
            var refund = pending
            refund.status = status
            refund.failureReason = failure
            let settled = refund
            update(tag) { account in
                account.refunds[id] = settled
                if status == "failed" { account.intents[intentID]?.refunded -= amount }
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

    /// GET /v1/refunds, optionally `payment_intent=pi_…` (then only that intent's refunds are
    /// looked at); newest first.
    func listRefunds(_ tag: String, _ query: Parameters) async -> Reply {
        do {
            let page = try refundPage(tag, query)
            var data: [JSONValue] = []
            for id in page.ids {
                if let refund = await refreshed(tag, id: id) { data.append(ObjectJSON.refund(refund)) }
            }
            return .ok(ObjectJSON.list(data, hasMore: page.hasMore, url: "/v1/refunds"))
        } catch {
            return .error(error)
        }
    }

    /// The page of refund ids `query` asks for. A function of its own so that no copy of the
    /// account's table outlives it: `refreshed` then changes the table in place.
    private func refundPage(_ tag: String, _ query: Parameters) throws(StripeError) -> (ids: [String], hasMore: Bool) {
        let filter = try query.string("payment_intent")
        let refunds = account(tag).refunds
        let order = filter.map { refunds.ids(withIndexKey: StoredRefund.intentIndexKey($0)) ?? CreationOrder() } ?? refunds.order
        return try Pagination.page(order, query: query, kind: "refund") { refunds[$0]?.created }
    }

    private func refreshed(_ tag: String, id: String) async -> StoredRefund? {
        guard var refund = account(tag).refunds[id] else { return nil }
        guard refund.status == "pending", !refundsInFlight.contains(id) else { return refund }
        switch try? await mock.lookupOverWire(reference: refund.ledgerReference, operation: .refund, now: now(tag)) {
        case .found(.approved)?:
            refund.status = "succeeded"
        case .found(.declined)?, .notFound?:
            // Declined, or written ahead of a ledger call that never happened (a crash before
            // it): no money moved.
            refund.status = "failed"
            refund.failureReason = "unknown"
            update(tag) { $0.intents[refund.paymentIntent]?.refunded -= refund.amount }
        default:
            return refund
        }
        let saved = refund
        update(tag) { $0.refunds[id] = saved }
        await persistSharingFlush(tag)
        return refund
    }

    /// Drops the refund written ahead of a ledger call that made none (refused, invalid).
    private func forgetRefund(_ tag: String, id: String) {
        update(tag) { account in
            guard let refund = account.refunds.removeValue(forKey: id) else { return }
            account.intents[refund.paymentIntent]?.refunded -= refund.amount
        }
    }
}
