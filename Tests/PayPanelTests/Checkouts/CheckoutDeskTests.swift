import Foundation
import MockProcessor
import PayPanel
import PayPanelDemo
import TestSupport
import Testing

/// The checkout resource: created from the seed's defaults, validated all at once,
/// updated on its own thread, canceled, expired, authenticated by its client secret, and paid
/// within the Apple Pay sheet's budget against the mock processor in virtual time.
@Suite struct CheckoutDeskTests {
    // MARK: - Create and read

    @Test func anEmptyBodyCreatesTheSeedCheckout() async throws {
        let harness = try CheckoutDeskHarness()
        let created = try await harness.create()
        let checkout = created.checkout
        #expect(PaymentIDs.isWellFormed(checkout.id, kind: .checkout))
        #expect(checkout.status == .open && checkout.amountOptions == [500, 1000, 2000] && checkout.defaultSegment == 1)
        #expect(checkout.panel.merchantIdentifier == "merchant.com.sample.ApplePayAction" && checkout.panel.currency.code == "USD")
        #expect(checkout.expiresAt == CheckoutHarness.start.addingTimeInterval(24 * 3600))
        #expect(created.clientSecret.hasPrefix(checkout.id + "_secret_"))

        let json = created.json
        #expect(json["object"] == "checkout" && json["status"] == "open" && json["id"] == .string(checkout.id))
        #expect(json["client_secret"] == .string(created.clientSecret))
        #expect(json["amount_options"] == [500, 1000, 2000])
        let requests = try #require(json["payment_requests"]?.arrayValue)
        #expect(requests.count == 3)
        #expect(requests.map { $0["paymentSummaryItems"]?.arrayValue?.last?["amount"] } == ["5.00", "10.00", "20.00"])
        for request in requests {
            #expect(PaymentRequestValidator.validate(json: request).report.isValid)
        }
        let payload = try #require(json["push_payload"])
        #expect(PushPayload.compactByteCount(of: payload) <= PushPayload.maximumByteCount)
        let read = PushPayloadReader.read(json: payload)
        #expect(read.report.isValid)
        #expect(read.payload?.aps.threadID == "checkout-\(checkout.id)")
        #expect(read.payload?.panel?.amountOptions == [500, 1000, 2000])

        // Read back: the same checkout, and the secret is in no other response.
        let loaded = try #require(try await harness.desk.checkout(checkout.id))
        #expect(loaded == checkout)
        #expect(loaded.apiJSON()["client_secret"] == nil)
        #expect(try await harness.desk.checkout("co_missing") == nil)
    }

    @Test func everyFieldCanBeGivenInSnakeCase() async throws {
        let harness = try CheckoutDeskHarness()
        let expiry = Int64(CheckoutHarness.start.timeIntervalSince1970) + 600
        let created = try await harness.create("""
            {"merchant_identifier": "merchant.com.example.shop", "merchant_name": "Example Shop", "country": "GB",
             "currency": "GBP", "supported_networks": ["visa", "mastercard"], "merchant_capabilities": ["supports3DS", "supportsDebit"],
             "product_label": "Tea", "amount_options": [300, 450], "default_segment": 2, "order_reference": "order-77",
             "expires_at": \(expiry), "capture_method": "manual"}
            """)
        let checkout = created.checkout
        #expect(checkout.panel.merchantName == "Example Shop" && checkout.panel.country.alpha2 == "GB")
        #expect(checkout.panel.supportedNetworks == [.visa, .masterCard])
        #expect(checkout.amountOptions == [300, 450] && checkout.defaultSegment == 2 && checkout.orderReference == "order-77")
        #expect(checkout.captureMethod == .manual && checkout.apiJSON()["expires_at"] == .number(expiry))
        #expect(checkout.paymentRequests.map { $0.total?.amount?.minorUnits } == [300, 450])
    }

    @Test func invalidParametersReportEveryViolationWithItsPath() async throws {
        let harness = try CheckoutDeskHarness()
        do {
            _ = try await harness.create("""
                {"currency": "usd", "supported_networks": ["visa", "bitcoin"], "amount_options": [500, -1, 500],
                 "default_segment": 9, "capture_method": "later", "expires_at": 1, "colour": "red", "product_label": ""}
                """)
            Issue.record("an invalid checkout was created")
        } catch let error as CheckoutError {
            #expect(error.code == "invalid_checkout")
            let paths = Set(error.violations.map(\.path))
            #expect(paths.isSuperset(of: [
                "currency", "supported_networks[1]", "amount_options[1]", "amount_options[2]", "capture_method", "expires_at",
                "colour", "product_label",
            ]), "\(error.violations)")
        }
        await #expect(throws: CheckoutError.self) { _ = try await harness.create("[1]") }
    }

    /// The desk runs on the service's thread, which every payment shares: a body is read
    /// before that thread is asked for. With the thread held by another job, a refused body is
    /// still refused; a desk that read it there refused it only once the thread was let go.
    @Test func aCheckoutBodyIsReadBeforeTheServicesThreadIsAskedFor() async throws {
        let harness = try CheckoutDeskHarness()
        let release = DispatchSemaphore(value: 0)
        let holding = QueuedCalls.Flag()
        let holder = Task { await Self.hold(harness.desk, holding, until: release) }
        try await QueuedCalls.wait(for: holding)
        // Generous, as every hold of the tests: with the whole suite starting at once the
        // pool may run none of a test's tasks for minutes.
        let deadline = ContinuousClock.now.advanced(by: QueuedCalls.patience)
        let refused = QueuedCalls.Flag()
        let refusal = Task {
            do { _ = try await harness.create(#"{"capture_method": "later"}"#) } catch let error as CheckoutError where error.code == "invalid_checkout" {
                refused.set()
            }
        }
        while !refused.isSet, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(refused.isSet, "refused while the service's thread was held")
        release.signal()
        try await refusal.value
        await holder.value
        // The thread let go, a valid body is created as ever.
        #expect(try await harness.create().checkout.status == .open)
    }

    /// Blocks the desk's thread (an `isolated` parameter runs there) until `release`.
    private static func hold(_ desk: isolated CheckoutDesk, _ holding: QueuedCalls.Flag, until release: DispatchSemaphore) {
        holding.set()
        release.wait()
    }

    // MARK: - Update, cancel, expiry

    @Test func anUpdateReplacesThePanelInPlaceOnTheSameThreadKeepingTheSelection() async throws {
        let harness = try CheckoutDeskHarness()
        let created = try await harness.create()
        var device = try NotificationPanelState(payload: try created.checkout.pushPayload())
        try device.selector.select(segment: 2)  // 10.00

        let updated = try await harness.desk.update(created.checkout.id, json: ["amount_options": [1000, 2500]])
        #expect(updated.amountOptions == [1000, 2500] && updated.version == 2 && updated.status == .open)
        let payload = try updated.pushPayload()
        #expect(payload.aps.threadID == created.checkout.threadID)
        guard case .applied(let change) = device.apply(payload) else {
            Issue.record("the update was not applied to the open panel")
            return
        }
        #expect(change.selectionKept && device.selector.selected.minorUnits == 1000)
        #expect(device.panel.amountOptions == [1000, 2500])
        #expect(try await harness.desk.checkout(created.checkout.id)?.amountOptions == [1000, 2500])

        // An invalid update changes nothing and says why.
        do {
            _ = try await harness.desk.update(created.checkout.id, json: ["amount_options": [], "default_segment": 0])
            Issue.record("an invalid update was applied")
        } catch let error as CheckoutError {
            #expect(Set(error.violations.map(\.path)) == ["amount_options", "default_segment"])
        }
        #expect(try await harness.desk.checkout(created.checkout.id)?.version == 2)
    }

    @Test func aCanceledCheckoutCanNeitherBeUpdatedNorPaid() async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create().checkout.id
        let canceled = try await harness.desk.cancel(id)
        #expect(canceled.status == .canceled)
        await #expect(throws: CheckoutError(.notOpen(id: id, status: .canceled))) {
            _ = try await harness.desk.update(id, json: ["amount_options": [100]])
        }
        await #expect(throws: CheckoutError(.notOpen(id: id, status: .canceled))) {
            _ = try await harness.desk.pay(id, amount: 500, method: try CheckoutDeskHarness.card())
        }
        await #expect(throws: CheckoutError(.notOpen(id: id, status: .canceled))) { _ = try await harness.desk.cancel(id) }
    }

    @Test func aChallengeAnsweredAfterPayMakesTheCheckoutPaidNotExpired() async throws {
        let harness = try CheckoutDeskHarness()
        let start = Int64(CheckoutHarness.start.timeIntervalSince1970)
        let id = try await harness.create(#"{"expires_at": \#(start + 600), "capture_method": "manual"}"#).checkout.id
        // A 3-D Secure card: /pay answers the sheet with failure and the intent waits for the challenge.
        let payment = try await harness.desk.pay(id, amount: 500, method: try CheckoutDeskHarness.card("4000002760003184"))
        #expect(payment.sheet == .failure && payment.paymentIntentStatus == .requiresAction && payment.status == .open)
        let intentID = payment.paymentIntentID
        // Answered outside /pay (the merchant's page, the API): the checkout reads paid from then on.
        let answered = try await harness.base.service.completeChallenge(intentID, result: .passed)
        #expect(answered.intent.status == .requiresCapture)
        #expect(try await harness.desk.checkout(id)?.status == .paid)
        // And the expiry sweep leaves it paid instead of skipping it as "in progress" for ever.
        harness.clock.advance(by: 600)
        #expect(try await harness.desk.expireDue().isEmpty)
        #expect(try await harness.desk.checkout(id)?.status == .paid)
    }

    @Test func theExpirySweepMarksPaidACheckoutWhoseChallengeWasPassed() async throws {
        let harness = try CheckoutDeskHarness()
        let start = Int64(CheckoutHarness.start.timeIntervalSince1970)
        let id = try await harness.create(#"{"expires_at": \#(start + 60), "capture_method": "manual"}"#).checkout.id
        let payment = try await harness.desk.pay(id, amount: 500, method: try CheckoutDeskHarness.card("4000002760003184"))
        _ = try await harness.base.service.completeChallenge(payment.paymentIntentID, result: .passed)
        harness.clock.advance(by: 60)
        // Nobody read the checkout in between: the sweep itself settles it.
        #expect(try await harness.desk.expireDue().isEmpty)
        await #expect(throws: CheckoutError(.notOpen(id: id, status: .paid))) { _ = try await harness.desk.cancel(id) }
    }

    @Test func theWorkerExpiresCheckoutsAtTheirExpiry() async throws {
        let harness = try CheckoutDeskHarness()
        let start = Int64(CheckoutHarness.start.timeIntervalSince1970)
        let soon = try await harness.create(#"{"expires_at": \#(start + 60)}"#).checkout.id
        let later = try await harness.create(#"{"expires_at": \#(start + 120)}"#).checkout.id
        #expect(try await harness.desk.expireDue().isEmpty)
        harness.clock.advance(by: 60)
        #expect(try await harness.desk.expireDue().map(\.id) == [soon])
        #expect(try await harness.desk.checkout(soon)?.status == .expired)
        #expect(try await harness.desk.checkout(later)?.status == .open)
        await #expect(throws: CheckoutError(.notOpen(id: soon, status: .expired))) {
            _ = try await harness.desk.pay(soon, amount: 500, method: try CheckoutDeskHarness.card())
        }
    }

    // MARK: - Client secret

    @Test func theClientSecretAuthenticatesItsCheckoutOnly() async throws {
        let harness = try CheckoutDeskHarness()
        let first = try await harness.create()
        let second = try await harness.create()
        #expect(try await harness.desk.authenticate(clientSecret: first.clientSecret) == first.checkout.id)
        #expect(try await harness.desk.authenticate(clientSecret: second.clientSecret) == second.checkout.id)
        // The other checkout's secret body with this checkout's id, a changed character, junk.
        let otherBody = second.clientSecret.components(separatedBy: "_secret_")[1]
        #expect(try await harness.desk.authenticate(clientSecret: "\(first.checkout.id)_secret_\(otherBody)") == nil)
        var tampered = Array(first.clientSecret)
        tampered[tampered.count - 1] = tampered.last == "A" ? "B" : "A"
        #expect(try await harness.desk.authenticate(clientSecret: String(tampered)) == nil)
        #expect(try await harness.desk.authenticate(clientSecret: first.checkout.id) == nil)
        #expect(try await harness.desk.authenticate(clientSecret: "") == nil)
        // Only the hash is stored.
        #expect(first.checkout.clientSecretHash == SHA256.hash(first.clientSecret))
    }

    // MARK: - Paying

    @Test func anApprovedCardPaysTheCheckout() async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create().checkout.id
        let payment = try await harness.desk.pay(id, amount: 1000, method: try CheckoutDeskHarness.card())
        #expect(payment.sheet == .success && payment.status == .paid && payment.error == nil)
        #expect(payment.paymentIntentStatus == .succeeded)
        #expect(payment.json["sheet"] == "success" && payment.json["payment_intent"] == .string(payment.paymentIntentID))
        let checkout = try #require(try await harness.desk.checkout(id))
        #expect(checkout.status == .paid && checkout.paymentIntentID == payment.paymentIntentID)
        let intent = try #require(try await harness.base.service.details(payment.paymentIntentID)?.intent)
        #expect(intent.amount.minorUnits == 1000 && intent.captureMethod == .automatic)
        try harness.base.check(settled: true)
        await #expect(throws: CheckoutError(.notOpen(id: id, status: .paid))) {
            _ = try await harness.desk.pay(id, amount: 1000, method: try CheckoutDeskHarness.card())
        }
    }

    @Test func aDeclineAnswersFailureAndTheCheckoutStaysOpenForAnotherCard() async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create(#"{"capture_method": "manual", "order_reference": "order-9"}"#).checkout.id
        let declined = try await harness.desk.pay(id, amount: 500, method: try CheckoutDeskHarness.card("4000000000009995"))
        #expect(declined.sheet == .failure && declined.status == .open)
        #expect(declined.error == CheckoutPaymentError(code: "insufficient_funds", message: "Your card has insufficient funds. Try another card."))
        #expect(declined.json["error"]?["code"] == "insufficient_funds")
        #expect(!JSONWriter.string(declined.json).contains("9995"))

        let approved = try await harness.desk.pay(id, amount: 500, method: try CheckoutDeskHarness.card())
        #expect(approved.sheet == .success && approved.status == .paid && approved.paymentIntentStatus == .requiresCapture)
        // The second try reused the intent of the first.
        #expect(approved.paymentIntentID == declined.paymentIntentID)
        let details = try #require(try await harness.base.service.details(approved.paymentIntentID))
        #expect(details.attempts.count == 2 && details.intent.orderReference == "order-9")
        try harness.base.check(settled: true)
    }

    @Test func anAmountNotAmongTheOptionsIsRefused() async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create().checkout.id
        await #expect(throws: CheckoutError(.amountNotOffered(amount: 700, options: [500, 1000, 2000], currency: "USD"))) {
            _ = try await harness.desk.pay(id, amount: 700, method: try CheckoutDeskHarness.card())
        }
        #expect(try await harness.desk.checkout(id)?.paymentIntentID == nil)
        await #expect(throws: CheckoutError(.notFound("co_nope"))) {
            _ = try await harness.desk.pay("co_nope", amount: 500, method: try CheckoutDeskHarness.card())
        }
    }

    @Test func anApplePayTokenPaysWhenItsAmountMatches() async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create().checkout.id
        // The payer chose 20.00 but the token was made for 10.00: refused, no attempt, still open.
        let mismatch = try await harness.desk.pay(id, amount: 2000, method: try harness.token(amount: 1000))
        #expect(mismatch.sheet == .failure && mismatch.status == .open && mismatch.error?.code == "token_amount_mismatch")
        #expect(try await harness.base.service.details(mismatch.paymentIntentID)?.attempts.isEmpty == true)
        let otherCurrency = try await harness.desk.pay(id, amount: 2000, method: try harness.token(amount: 2000, currency: "EUR", seed: "eur"))
        #expect(otherCurrency.sheet == .failure && otherCurrency.error?.code == "token_currency_mismatch")

        let paid = try await harness.desk.pay(id, amount: 2000, method: try harness.token(amount: 2000, seed: "right"))
        #expect(paid.sheet == .success && paid.status == .paid && paid.paymentIntentID == mismatch.paymentIntentID)
        let attempt = try #require(try await harness.base.service.details(paid.paymentIntentID)?.attempts.first)
        #expect(attempt.source == .applePay)
        try harness.base.check(settled: true)
    }

    @Test func aSlowProcessorIsAnsweredFailureWithinTheBudgetAndTheLateApprovalReversed() async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create().checkout.id
        let payment = try await harness.desk.pay(id, amount: 1000, method: try CheckoutDeskHarness.card(holder: "SLOW_30S"))
        #expect(harness.base.elapsed == 25)
        #expect(payment.sheet == .failure && payment.status == .open && payment.paymentIntentStatus == .processing)
        #expect(payment.error?.code == "sheet_deadline_exceeded")
        // While the outcome is unknown, another pay is refused rather than authorizing twice.
        await #expect(throws: CheckoutError(.paymentInProgress(id: id, intentID: payment.paymentIntentID))) {
            _ = try await harness.desk.pay(id, amount: 1000, method: try CheckoutDeskHarness.card())
        }

        _ = try await harness.base.service.reconcile()
        let details = try #require(try await harness.base.service.details(payment.paymentIntentID))
        #expect(details.intent.status == .requiresPaymentMethod && details.attempts.first?.status == .voided)
        let attemptID = try #require(details.attempts.first?.id)
        #expect(try harness.base.ledgerSummary(attemptID) == ["authorize:approved", "void:approved"])
        #expect(try await harness.desk.checkout(id)?.status == .open)
        try harness.base.check(settled: true)

        // The payer tries again: the same intent, approved this time.
        let again = try await harness.desk.pay(id, amount: 1000, method: try CheckoutDeskHarness.card())
        #expect(again.sheet == .success && again.status == .paid && again.paymentIntentID == payment.paymentIntentID)
    }
}
