import Foundation
import MockProcessor
import PayPanel

/// Names given as the cardholder name that only a network can show. The card's own rules
/// decide the outcome; then the connection is closed without an answer.
enum WireFault: String, CaseIterable {
    /// Closed before the request reached the processor: nothing recorded.
    case dropBefore = "DROP_BEFORE"
    /// Processed and recorded, then the connection closed before the answer.
    case dropAfter = "DROP_AFTER"

    init?(holderName: String?) {
        guard let holderName else { return nil }
        self.init(rawValue: holderName.trimmingCharacters(in: .whitespaces).uppercased())
    }
}

extension ProcessorService {
    /// Authorizes the intent's payment method with the ledger, under reference
    /// `acct_…/pi_…/n`, and turns the ledger's answer into the intent's new state and the reply.
    /// `createdNow`: the intent was created by this same request, so an authorization that
    /// never reached the ledger undoes the creation too (the request "never arrived").
    /// `offSession`: the request said `off_session=true`; a Stripe test card then behaves as
    /// its off-session column says (`StripeTestCards`).
    func authorize(_ tag: String, intentID: String, scenario: String?, createdNow: Bool, offSession: Bool = false) async -> Reply {
        guard var intent = account(tag).intents[intentID], let card = intent.paymentMethod else {
            return .error(.missing("payment_method"))
        }
        intent.authorizations += 1
        intent.status = "processing"
        intent.lastPaymentError = nil
        let reference = intent.ledgerReference(accountPrefix: account(tag).ledgerPrefix)
        let saved = intent
        update(tag) { $0.intents[intentID] = saved }
        // Written ahead of the ledger call: a crash after the ledger approved but before the
        // request's own write would otherwise lose the intent while its money stays held, and a
        // client that searches instead of retrying (the backend's worker) would find nothing.
        // Restarted, the server settles a `processing` intent from the ledger. Found by the
        // processor crash soak.
        writeAhead(tag)

        let fault = WireFault(holderName: card.method.holderName)
        if fault == .dropBefore {
            undoAuthorization(tag, intentID: intentID, createdNow: createdNow)
            return .drop(delay: .zero)
        }
        var chosen = scenario
        if chosen == nil, fault == nil, TriggerLookup.holderTrigger(card.method.holderName) == nil {
            // A per-card scripted chain applies when neither a scenario nor the holder name asks.
            update(tag) { account in chosen = account.cardChains[Account.cardKey(card.method.cardNumber.digits)]?.take() }
            // Off session, a test card that asks for 3-D Secure cannot: its off-session trigger
            // (usually AUTHENTICATION_REQUIRED) goes to the ledger as the scenario, at the card's
            // own place in the precedence (after a scenario, the holder name and a scripted chain).
            if chosen == nil, offSession, let testCard = StripeTestCards.card(number: card.method.cardNumber.digits),
                testCard.offSession != testCard.onSession
            {
                chosen = testCard.offSession.name
            }
        }
        let request = AuthorizationRequest(
            reference: reference, amount: Amount(minorUnits: intent.amount, currency: intent.currency), paymentMethod: card.method,
            scenario: chosen)
        let answer = onMock(at: tag) { mock, now in mock.authorizeOverWire(request, now: now) }
        switch answer {
        case .answer(let outcome, let delay):
            let reply = await apply(outcome, tag: tag, intentID: intentID, delay: delay)
            // Late: the caller may have given up before this answer (or never gets it).
            if fault == .dropAfter || delay >= Self.lateAnswer { await emitAuthorizationEvent(tag, intentID: intentID, after: delay) }
            return fault == .dropAfter ? .drop(delay: delay) : reply
        case .noAnswer:
            await settleFromLedger(tag, intentID: intentID, reference: reference, createdNow: createdNow)
            await emitAuthorizationEvent(tag, intentID: intentID, after: .zero)
            return .hold
        case .serverError(let delay):
            await settleFromLedger(tag, intentID: intentID, reference: reference, createdNow: createdNow)
            await emitAuthorizationEvent(tag, intentID: intentID, after: delay)
            return .error(.apiError("An internal error occurred (HTTP_500 trigger); the request may or may not have been processed: look the intent up."), delay: delay)
        case .refused(let status, let reason, let delay):
            undoAuthorization(tag, intentID: intentID, createdNow: createdNow)
            var error = StripeError(
                status: status == 429 ? .tooManyRequests : .serviceUnavailable, type: status == 429 ? "invalid_request_error" : "api_error",
                code: status == 429 ? "rate_limit" : nil, message: reason)
            error.headers = ["Retry-After": "1"]
            return .error(error, delay: delay)
        }
    }

    /// After a lost answer or a 500: the intent shows what the ledger recorded, or, when
    /// nothing was recorded, the authorization (or the whole request) is undone.
    func settleFromLedger(_ tag: String, intentID: String, reference: String, createdNow: Bool) async {
        let found = try? await mock.lookupOverWire(reference: reference, operation: .authorize, now: now(tag))
        guard case .found(let outcome)? = found else {
            undoAuthorization(tag, intentID: intentID, createdNow: createdNow)
            return
        }
        _ = await apply(outcome, tag: tag, intentID: intentID, delay: .zero)
    }

    /// Settles an intent a crash left `processing` (at start, or when an evicted account comes
    /// back): its authorization from the ledger, then, for an authorized one, the capture or the
    /// release it was written ahead of.
    func settleAfterCrash(_ tag: String, intentID: String, reference: String) async {
        await settleFromLedger(tag, intentID: intentID, reference: reference, createdNow: false)
        guard var intent = account(tag).intents[intentID], intent.status == "requires_capture" else { return }
        if case .found(.approved(let captured))? = try? await mock.lookupOverWire(reference: reference, operation: .capture, now: now(tag)) {
            intent.status = "succeeded"
            intent.amountReceived = captured.amount.minorUnits
            intent.amountCapturable = 0
        } else if case .found(.approved)? = try? await mock.lookupOverWire(reference: reference, operation: .void, now: now(tag)) {
            intent.status = "canceled"
            intent.amountCapturable = 0
            intent.canceledAt = now(tag)
        } else {
            return
        }
        let settled = intent
        update(tag) { $0.intents[intentID] = settled }
    }

    func undoAuthorization(_ tag: String, intentID: String, createdNow: Bool) {
        update(tag) { account in
            if createdNow {
                account.intents[intentID] = nil
            } else if var intent = account.intents[intentID] {
                intent.status = "requires_payment_method"
                account.intents[intentID] = intent
            }
        }
    }

    /// The intent after the ledger's authorization outcome, and the reply Stripe would give:
    /// 200 with the intent, or 402 `card_error` carrying it.
    func apply(_ outcome: ProcessorOutcome, tag: String, intentID: String, delay: Duration) async -> Reply {
        guard var intent = account(tag).intents[intentID] else { return .error(.resourceMissing("payment_intent", intentID)) }
        let prefix = account(tag).ledgerPrefix
        switch outcome {
        case .approved(let approval):
            intent.latestCharge = recordCharge(tag, intent: intent, paymentMethod: intent.paymentMethod?.id ?? intent.paymentMethodID, failure: nil)
            // Saved for later use by the intent's customer, as Stripe does after a success.
            if intent.setupFutureUsage != nil, let customer = intent.customer, let method = intent.paymentMethod?.id,
               account(tag).paymentMethods[method]?.customer == nil {
                update(tag) { $0.paymentMethods[method]?.customer = customer }
            }
            intent.captureBefore = approval.expiresAt
            intent.amountCapturable = approval.amount.minorUnits
            intent.status = "requires_capture"
            if intent.captureMethod != "manual" {
                let saved = intent
                update(tag) { $0.intents[intentID] = saved }
                let request = CaptureRequest(reference: intent.ledgerReference(accountPrefix: prefix), amount: approval.amount)
                let capture = onMock(at: tag) { mock, now in mock.captureOverWire(request, now: now) }
                if case .answer(.approved(let captured), _) = capture {
                    intent.amountCapturable = 0
                    intent.amountReceived = captured.amount.minorUnits
                    intent.status = "succeeded"
                }
            }
        case .declined(let code):
            if let error = Self.requestError(code) {
                intent.status = "requires_payment_method"
                let saved = intent
                update(tag) { $0.intents[intentID] = saved }
                return .error(error, delay: delay)
            }
            let method = intent.paymentMethod?.id ?? intent.paymentMethodID
            let cardError = ObjectJSON.cardError(code, card: method.flatMap { account(tag).paymentMethods[$0] })
            intent.latestCharge = recordCharge(
                tag, intent: intent, paymentMethod: method, failure: (cardError.code, cardError.declineCode, cardError.message))
            intent.lastPaymentError = cardError.json
            intent.status = "requires_payment_method"
            intent.paymentMethod = nil
            intent.paymentMethodID = nil
            let saved = intent
            update(tag) { $0.intents[intentID] = saved }
            var error = StripeError(
                status: .paymentRequired, type: "card_error", code: cardError.code, declineCode: cardError.declineCode, message: cardError.message,
                param: cardError.param)
            error.extra = [("payment_intent", ObjectJSON.intent(saved, baseURL: baseURL))]
            return .error(error, delay: delay)
        case .challengeRequired:
            intent.status = "requires_action"
        case .pending, .notProcessed, .unknown:
            intent.status = "processing"
        }
        let saved = intent
        update(tag) { $0.intents[intentID] = saved }
        return .ok(ObjectJSON.intent(saved, baseURL: baseURL), delay: delay)
    }

    /// The ledger's refusals of the request itself (not of the card) as Stripe's 400s.
    static func requestError(_ code: DeclineCode) -> StripeError? {
        switch code {
        case .idempotencyKeyReused:
            StripeError(status: .badRequest, type: "idempotency_error", message: "This payment was already authorized with other parameters.")
        case .invalidRequest:
            .invalidRequest("The mock processor refused the request: check the scenario, holder-name chain and card (see GET /_mock/triggers).")
        case .invalidAmount: .invalidRequest("Amount must be at least 1.", param: "amount")
        case .currencyMismatch: .invalidRequest("The currency differs from the payment's.", param: "currency")
        case .amountTooLarge: .invalidRequest("The amount is more than can be captured or refunded.", param: "amount", code: "amount_too_large")
        case .authorizationNotFound, .authorizationNotApproved, .alreadyCaptured, .alreadyVoided, .notCaptured:
            .unexpectedState("The payment is not in a state that allows this (\(code.rawValue)).")
        case .authorizationExpired:
            .invalidRequest("The authorization expired before it was captured.", code: "charge_expired_for_capture")
        default: nil
        }
    }
}

/// Whether a holder name is a trigger (then a card's scripted chain does not apply).
enum TriggerLookup {
    static func holderTrigger(_ name: String?) -> [MockTrigger]? {
        guard let name else { return nil }
        return try? TriggerChain.triggers(inHolderName: name)
    }
}
