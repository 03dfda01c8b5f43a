import Foundation
import MockProcessor
import PayPanel
import Testing
import TestSupport

/// Every row of Stripe's test card table (`StripeTestCards`), confirmed over HTTP against a real
/// `processor serve`: each `pm_card_…` id and each number, on session and with
/// `off_session=true`. The rows come from the table, so a new row is confirmed too; what each
/// behaviour must look like on the wire is written out here, independently of the table.
@Suite("processor serve: Stripe's test cards, every id and number, on and off session")
struct TestCardWireTests {
    /// What Stripe's test mode answers, by trigger: the 402's `code`, `decline_code`, `message`
    /// and `param`.
    struct Decline: Equatable {
        let code: String
        let declineCode: String
        let message: String
        var param: String? = nil
    }

    static let declines: [String: Decline] = [
        "GENERIC_DECLINE": Decline(code: "card_declined", declineCode: "generic_decline", message: "Your card was declined."),
        "INSUFFICIENT_FUNDS": Decline(code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds."),
        "LOST_CARD": Decline(code: "card_declined", declineCode: "lost_card", message: "Your card was declined."),
        "STOLEN_CARD": Decline(code: "card_declined", declineCode: "stolen_card", message: "Your card was declined."),
        "EXPIRED_CARD": Decline(code: "expired_card", declineCode: "expired_card", message: "Your card has expired.", param: "exp_month"),
        "INCORRECT_CVC": Decline(code: "incorrect_cvc", declineCode: "incorrect_cvc", message: "Your card's security code is incorrect.", param: "cvc"),
        "PROCESSING_ERROR": Decline(
            code: "processing_error", declineCode: "processing_error", message: "An error occurred while processing your card. Try again in a little bit."),
        "CARD_VELOCITY_EXCEEDED": Decline(
            code: "card_declined", declineCode: "card_velocity_exceeded",
            message: "Your card was declined for making repeated attempts too frequently or exceeding its amount limit."),
        "FRAUDULENT": Decline(code: "card_declined", declineCode: "fraudulent", message: "Your card was declined."),
        "AUTHENTICATION_REQUIRED": Decline(
            code: "authentication_required", declineCode: "authentication_required", message: "Your card was declined. This transaction requires authentication."),
    ]

    /// What a confirm answers first, and for 3-D Secure what passing the challenge gives.
    enum Expected: Equatable {
        case succeeded
        case declined(Decline)
        case requiresAction(thenPassed: Passed)

        enum Passed: Equatable {
            case succeeded
            case declined(Decline)
        }
    }

    static func expected(_ trigger: MockTrigger) -> Expected? {
        switch trigger.name {
        case "APPROVE": .succeeded
        case "CHALLENGE": .requiresAction(thenPassed: .succeeded)
        case "CHALLENGE_THEN_INSUFFICIENT_FUNDS": declines["INSUFFICIENT_FUNDS"].map { .requiresAction(thenPassed: .declined($0)) }
        case "CHALLENGE_THEN_GENERIC_DECLINE": declines["GENERIC_DECLINE"].map { .requiresAction(thenPassed: .declined($0)) }
        default: declines[trigger.name].map { .declined($0) }
        }
    }

    /// One confirm of `card` through `how` (an id, or the number as `payment_method_data`).
    struct Attempt: CustomStringConvertible {
        let card: StripeTestCard
        let how: String
        let offSession: Bool
        /// An id, or the number by its last four digits: no card number in a test log.
        var description: String {
            (how.hasPrefix("pm_") ? how : "the number ending \(how.suffix(4))") + (offSession ? ", off session" : "")
        }
    }

    @Test("Every pm_card id and every number of the table confirms as Stripe's test mode does, with Stripe's error for declines")
    func everyIdAndNumberOnSession() async throws {
        try await confirmAll(offSession: false)
    }

    @Test("off_session=true: 3-D Secure cards are refused authentication_required (or go through when set up); the rest as on session")
    func everyIdAndNumberOffSession() async throws {
        try await confirmAll(offSession: true)
    }

    func confirmAll(offSession: Bool) async throws {
        let directory = try TemporaryDirectory("testcards")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: offSession ? "sk_test_cards_off" : "sk_test_cards_on")
        var attempts: [Attempt] = []
        for card in StripeTestCards.all {
            attempts.append(Attempt(card: card, how: card.number, offSession: offSession))
            attempts += card.paymentMethods.map { Attempt(card: card, how: $0, offSession: offSession) }
        }
        #expect(attempts.count >= 90, "the table shrank: \(attempts.count) ids and numbers")
        for attempt in attempts {
            let trigger = offSession ? attempt.card.offSession : attempt.card.onSession
            guard let expected = Self.expected(trigger) else {
                Issue.record("\(attempt): no expectation for \(trigger.name): write what Stripe answers into TestCardWireTests")
                continue
            }
            try await confirm(attempt, expecting: expected, client: client)
        }
        #expect(await server.terminate() == 0)
    }

    func confirm(_ attempt: Attempt, expecting expected: Expected, client: StripeTestClient) async throws {
        var pairs: [(String, String)] = [("amount", "1000"), ("currency", "usd"), ("confirm", "true")]
        if attempt.how.hasPrefix("pm_") {
            pairs.append(("payment_method", attempt.how))
        } else {
            pairs += [("payment_method_data[type]", "card"), ("payment_method_data[card][number]", attempt.how),
                      ("payment_method_data[card][exp_month]", "12"), ("payment_method_data[card][exp_year]", "2034")]
        }
        if attempt.offSession { pairs.append(("off_session", "true")) }
        let reply = try await client.call("POST", "/v1/payment_intents", pairs)
        #expect(!reply.text.contains(attempt.card.number), "\(attempt): the answer holds the card number")
        switch expected {
        case .succeeded:
            #expect(reply.status == 200, "\(attempt): \(reply.text)")
            #expect(reply.status_ == "succeeded", "\(attempt)")
            #expect(reply["amount_received"]?.int64Value == 1000, "\(attempt)")
        case .declined(let decline):
            expectDecline(reply, decline, attempt)
        case .requiresAction(let passed):
            #expect(reply.status == 200, "\(attempt): \(reply.text)")
            #expect(reply.status_ == "requires_action", "\(attempt)")
            #expect(reply["next_action"]?["type"]?.stringValue == "redirect_to_url", "\(attempt)")
            let completed = try await client.call("POST", "/_mock/3ds/\(reply.id)", [("outcome", "pass")])
            switch passed {
            case .succeeded:
                #expect(completed.status == 200, "\(attempt) passed: \(completed.text)")
                #expect(completed.status_ == "succeeded", "\(attempt) passed")
            case .declined(let decline):
                expectDecline(completed, decline, attempt)
            }
        }
    }

    func expectDecline(_ reply: Reply, _ decline: Decline, _ attempt: Attempt) {
        #expect(reply.status == 402, "\(attempt): \(reply.text)")
        #expect(reply.error?["type"]?.stringValue == "card_error", "\(attempt)")
        #expect(reply.error?["code"]?.stringValue == decline.code, "\(attempt)")
        #expect(reply.error?["decline_code"]?.stringValue == decline.declineCode, "\(attempt)")
        #expect(reply.error?["message"]?.stringValue == decline.message, "\(attempt)")
        #expect(reply.error?["param"]?.stringValue == decline.param, "\(attempt)")
        let intent = reply.error?["payment_intent"]
        #expect(intent?["status"]?.stringValue == "requires_payment_method", "\(attempt)")
        let last = intent?["last_payment_error"]
        #expect(last?["code"]?.stringValue == decline.code, "\(attempt)")
        #expect(last?["decline_code"]?.stringValue == decline.declineCode, "\(attempt)")
        #expect(last?["message"]?.stringValue == decline.message, "\(attempt)")
        #expect(last?["payment_method"]?["card"]?["brand"]?.stringValue == attempt.card.brand, "\(attempt)")
        #expect(last?["payment_method"]?["card"]?["funding"]?.stringValue == attempt.card.funding, "\(attempt)")
        #expect(last?["payment_method"]?["card"]?["last4"]?.stringValue == String(attempt.card.number.suffix(4)), "\(attempt)")
    }

    @Test("off_session on a later confirm; setup_future_usage echoed; off_session without confirm, or a bad value, is 400; a holder trigger still wins")
    func offSessionOnConfirmAndSetupFutureUsage() async throws {
        let directory = try TemporaryDirectory("testcards")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_off_session")

        let created = try await client.call(
            "POST", "/v1/payment_intents", [("amount", "700"), ("currency", "eur"), ("setup_future_usage", "off_session")])
        #expect(created.status_ == "requires_payment_method", "\(created.text)")
        #expect(created["setup_future_usage"]?.stringValue == "off_session")
        let refused = try await client.call(
            "POST", "/v1/payment_intents/\(created.id)/confirm", [("payment_method", "pm_card_authenticationRequired"), ("off_session", "recurring")])
        #expect(refused.status == 402, "\(refused.text)")
        #expect(refused.error?["code"]?.stringValue == "authentication_required")
        #expect(refused.error?["decline_code"]?.stringValue == "authentication_required")
        let fetched = try await client.call("GET", "/v1/payment_intents/\(created.id)")
        #expect(fetched.status_ == "requires_payment_method")
        #expect(fetched["last_payment_error"]?["code"]?.stringValue == "authentication_required")
        #expect(fetched["setup_future_usage"]?.stringValue == "off_session")
        // The payer comes back: on session the same card asks for 3-D Secure, and passing pays.
        let back = try await client.call("POST", "/v1/payment_intents/\(created.id)/confirm", [("payment_method", "pm_card_authenticationRequired")])
        #expect(back.status_ == "requires_action", "\(back.text)")
        let passed = try await client.call("POST", "/_mock/3ds/\(created.id)", [("outcome", "pass")])
        #expect(passed.status_ == "succeeded", "\(passed.text)")

        let withoutConfirm = try await client.call(
            "POST", "/v1/payment_intents", [("amount", "700"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("off_session", "true")])
        #expect(withoutConfirm.status == 400, "\(withoutConfirm.text)")
        #expect(withoutConfirm.error?["param"]?.stringValue == "off_session")
        let badValue = try await client.call(
            "POST", "/v1/payment_intents",
            [("amount", "700"), ("currency", "usd"), ("confirm", "true"), ("payment_method", "pm_card_visa"), ("off_session", "sometimes")])
        #expect(badValue.status == 400, "\(badValue.text)")
        #expect(badValue.error?["param"]?.stringValue == "off_session")
        let badUsage = try await client.call(
            "POST", "/v1/payment_intents", [("amount", "700"), ("currency", "usd"), ("setup_future_usage", "later")])
        #expect(badUsage.status == 400, "\(badUsage.text)")
        #expect(badUsage.error?["param"]?.stringValue == "setup_future_usage")

        // The cardholder name is asked before the card, off session too.
        let holder = try await client.call(
            "POST", "/v1/payment_intents",
            [("amount", "700"), ("currency", "usd"), ("confirm", "true"), ("off_session", "true"), ("payment_method", "pm_card_authenticationRequired"),
             ("payment_method_data[billing_details][name]", "APPROVE")])
        #expect(holder.status_ == "succeeded", "\(holder.text)")
        // Off session an ordinary card pays as on session.
        let plain = try await client.call(
            "POST", "/v1/payment_intents",
            [("amount", "700"), ("currency", "usd"), ("confirm", "true"), ("off_session", "true"), ("payment_method", "pm_card_visa"),
             ("setup_future_usage", "on_session")])
        #expect(plain.status_ == "succeeded", "\(plain.text)")
        #expect(plain["setup_future_usage"]?.stringValue == "on_session")

        let ledger = try await client.call("GET", "/_mock/ledger")
        let triggers = ledger["data"]?.arrayValue?.compactMap { $0["trigger"]?.stringValue } ?? []
        #expect(triggers.contains("AUTHENTICATION_REQUIRED"), "\(triggers)")
        #expect(await server.terminate() == 0)
    }

    @Test("GET /_mock/triggers gives the test card table as JSON, the one the docs and the SDK check read")
    func theTableOverHTTP() async throws {
        let directory = try TemporaryDirectory("testcards")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_card_table")
        let table = try await client.call("GET", "/_mock/triggers")
        #expect(table["test_cards"] == StripeTestCards.json)
        let cards = table["test_cards"]?.arrayValue ?? []
        #expect(cards.count == StripeTestCards.all.count)
        let ids = Set(table["payment_methods"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        #expect(ids == Set(StripeTestCards.all.flatMap(\.paymentMethods)))
        let radar = try #require(cards.first { $0["number"] == "4100000000000019" })
        #expect(radar["confirm"]?["error"]?["decline_code"] == "fraudulent")
        let always = try #require(cards.first { $0["number"] == "4000002760003184" })
        #expect(always["confirm"]?["status"] == "requires_action")
        #expect(always["off_session"]?["error"]?["code"] == "authentication_required")
        #expect(await server.terminate() == 0)
    }
}
