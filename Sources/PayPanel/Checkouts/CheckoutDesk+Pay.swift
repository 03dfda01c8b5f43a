import Foundation

// The device's pay call: `POST /v1/checkouts/{id}/pay`.
//
// The sheet's budget: the call returns within the Apple Pay sheet's deadline
// (`PaymentPolicy.sheetAnswerDeadline`, 25 s) whatever the processor does, because every
// attempt is opened with `answersPaymentSheet: true`. The executor then cuts every processor
// call the device waits on (the authorization, the automatic capture after it, a lookup when
// the call is resumed) to the time left before the deadline, so a slow processor's call ends
// as *unknown* by 25 s.
//
// The answer binds: it is recorded before it is given. An outcome still open when the call
// returns (the deadline passed, or an unknown answer came back early) is recorded as the sheet
// answered failure (`PaymentService.answeringSheet`), so an approval found later — by a
// webhook, the worker, `paypanel reconcile`, a lookup after a restart — is reversed, never
// kept. The answer is read from the outcome (`PaymentOutcome.sheetAnswer`), the committed
// state of this very attempt, not from a `SheetAnswerObserver`.
extension CheckoutDesk {
    /// Pays `amount` (minor units; one of the options) of an open checkout with `method`.
    /// The first try creates the checkout's intent (its capture method and order reference);
    /// a try after a failure reuses that intent (or replaces it when another amount is chosen).
    /// A decline or an unknown outcome is not an error: the answer says `failure` with a
    /// payer-safe error and the checkout stays open for another card. Refused (thrown): an
    /// unknown or closed checkout, an amount not offered, a payment already in flight.
    public func pay(_ checkoutID: String, amount: Int64, method: SubmittedPaymentMethod) async throws -> CheckoutPayment {
        try await pay(checkoutID, amount: amount, method: method, recoveryPoint: nil)
    }

    /// `pay`, recording the attempt on `recoveryPoint` (the request's idempotency claim) in the
    /// transaction that opens it; a request that takes the key over after this run failed or
    /// crashed calls `resume(_:attemptID:)` instead of paying again.
    package func pay(
        _ checkoutID: String, amount: Int64, method: SubmittedPaymentMethod, recoveryPoint: IdempotencyClaim?
    ) async throws -> CheckoutPayment {
        var checkout = try await require(checkoutID)
        if checkout.status == .open, let expiresAt = checkout.expiresAt, clock.now() >= expiresAt {
            _ = try? await expireDue()
            throw CheckoutError(.notOpen(id: checkoutID, status: .expired))
        }
        guard checkout.status == .open else { throw CheckoutError(.notOpen(id: checkoutID, status: checkout.status)) }
        guard checkout.offers(amount) else {
            throw CheckoutError(.amountNotOffered(amount: amount, options: checkout.amountOptions, currency: checkout.panel.currency.code))
        }
        guard paying.insert(checkoutID).inserted else {
            throw CheckoutError(.paymentInProgress(id: checkoutID, intentID: checkout.paymentIntentID))
        }
        defer { paying.remove(checkoutID) }

        let intentID = try await intentForPayment(&checkout, amount: amount)
        let outcome: PaymentOutcome
        do {
            outcome = try await service.authorize(method, intentID: intentID, answersPaymentSheet: true, recoveryPoint: recoveryPoint)
        } catch let error as ApplePayTokenError {
            // A token that does not verify, or is for another amount: no attempt was opened.
            return try await refusedToken(checkout, intentID: intentID, code: error.code, amountMismatch: Self.isMismatch(error))
        } catch let error as PaymentStoreError {
            guard case .tokenReplayed = error.reason else { throw error }
            return try await refusedToken(checkout, intentID: intentID, code: error.code, amountMismatch: false)
        }
        return try await finish(checkout, outcome: outcome)
    }

    /// The answer of a pay (or a challenge answer) whose run failed after opening, or moving,
    /// attempt `attemptID` of the checkout's intent: the attempt's call is looked up if it is
    /// still waiting (`PaymentService.resume`), never sent again, and the answer is what the
    /// run would have given.
    package func resume(_ checkoutID: String, attemptID: String) async throws -> CheckoutPayment {
        let checkout = try await require(checkoutID)
        guard let intentID = checkout.paymentIntentID else {
            throw PaymentRejection(intentID: "-", reason: .unknownAttempt(attemptID))
        }
        guard paying.insert(checkoutID).inserted else {
            throw CheckoutError(.paymentInProgress(id: checkoutID, intentID: intentID))
        }
        defer { paying.remove(checkoutID) }
        return try await finish(checkout, outcome: try await service.resume(attemptID: attemptID, intentID: intentID))
    }

    /// The intent this try pays: the waiting intent of a failed try for the same amount, or a
    /// new one (the previous, for another amount, is canceled first).
    private func intentForPayment(_ checkout: inout Checkout, amount: Int64) async throws -> String {
        if let existing = checkout.paymentIntentID, let intent = try await service.details(existing)?.intent {
            switch intent.status {
            case .requiresPaymentMethod:
                if intent.amount.minorUnits == amount { return existing }
                _ = try await service.cancel(existing, reason: .requestedByCustomer)
            case .canceled, .expired:
                break
            case .requiresCapture, .succeeded:
                throw CheckoutError(.notOpen(id: checkout.id, status: try await markPaid(checkout).status))
            case .processing, .requiresAction, .requiresMerchantAction:
                throw CheckoutError(.paymentInProgress(id: checkout.id, intentID: existing))
            }
        }
        let intent = try await service.createIntent(try NewPaymentIntent(
            amount: Amount(minorUnits: amount, currency: checkout.panel.currency), captureMethod: checkout.captureMethod,
            orderReference: checkout.orderReference))
        checkout.paymentIntentID = intent.id
        checkout = try await save(checkout, at: clock.now())
        return intent.id
    }

    /// The answer for an authorization's outcome, recorded before it is given: an outcome
    /// still open is recorded as the sheet answered failure (`PaymentService.answeringSheet`),
    /// so a later approval is reversed and the device's answer and the database's agree. The
    /// checkout is paid once the intent is authorized (manual capture) or captured, or once
    /// the sheet was told success (the authorization was approved; an automatic capture whose
    /// answer is still unknown is the reconciler's business, not the payer's).
    func finish(_ checkout: Checkout, outcome given: PaymentOutcome) async throws -> CheckoutPayment {
        let outcome = try await service.answeringSheet(given)
        let intent = outcome.intent
        let paid = outcome.sheetAnswer == .success || intent.status == .requiresCapture || intent.status == .succeeded
        let status = paid ? try await markPaid(checkout).status : checkout.status
        let sheet: SheetAnswer = outcome.sheetAnswer ?? (paid ? .success : .failure)
        return CheckoutPayment(
            sheet: sheet, status: status, paymentIntentID: intent.id, paymentIntentStatus: intent.status,
            error: sheet == .failure ? Self.payerError(outcome) : nil)
    }

    /// What the payer is told about a failure: the decline's own payer message, or a generic
    /// one; never the processor's words.
    static func payerError(_ outcome: PaymentOutcome) -> CheckoutPaymentError {
        if let failure = outcome.attempt?.failure {
            return CheckoutPaymentError(code: failure.declineCode?.rawValue ?? failure.code.rawValue, message: failure.payerMessage)
        }
        if outcome.sheetAnswer == .failure {
            return CheckoutPaymentError(
                code: FailureCode.sheetDeadlineExceeded.rawValue, message: FailureCode.sheetDeadlineExceeded.payerMessage)
        }
        if outcome.requiresChallenge {
            return CheckoutPaymentError(code: "authentication_required", message: "Your bank needs to verify this payment. Pay in the app instead.")
        }
        return CheckoutPaymentError(code: "payment_failed", message: "This payment could not be completed. Try again.")
    }

    private func refusedToken(_ checkout: Checkout, intentID: String, code: String, amountMismatch: Bool) async throws -> CheckoutPayment {
        let intentStatus = try await service.details(intentID)?.intent.status ?? .requiresPaymentMethod
        let message = amountMismatch
            ? "The amount approved in Apple Pay does not match the amount chosen. Try again."
            : "This payment could not be completed. Try again."
        return CheckoutPayment(
            sheet: .failure, status: checkout.status, paymentIntentID: intentID, paymentIntentStatus: intentStatus,
            error: CheckoutPaymentError(code: code, message: message))
    }

    private static func isMismatch(_ error: ApplePayTokenError) -> Bool {
        switch error {
        case .amountMismatch, .currencyMismatch: true
        default: false
        }
    }
}
