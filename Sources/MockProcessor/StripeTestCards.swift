import PayPanel

/// The error Stripe returns for a decline: the `code`, `decline_code`, `message` and `param` of
/// its `card_error`. Those strings are part of Stripe's API surface (SDK users match on them),
/// so they are Stripe's own, as its test mode returns them.
public struct StripeDecline: Sendable, Equatable {
    /// The error's `code`: `card_declined`, or a more precise one (`expired_card`, …).
    public let code: String
    public let declineCode: DeclineCode
    public let message: String
    /// The request parameter Stripe blames, when it names one.
    public let param: String?

    init(_ code: String, _ declineCode: DeclineCode, _ message: String, param: String? = nil) {
        self.code = code
        self.declineCode = declineCode
        self.message = message
        self.param = param
    }

    /// Every decline a test card or a decline trigger can give. Lost, stolen and fraudulent cards
    /// get the plain message at Stripe too, so that a fraudster learns nothing from it.
    public static let all: [StripeDecline] = [
        StripeDecline("card_declined", .genericDecline, "Your card was declined."),
        StripeDecline("card_declined", .insufficientFunds, "Your card has insufficient funds."),
        StripeDecline("card_declined", .lostCard, "Your card was declined."),
        StripeDecline("card_declined", .stolenCard, "Your card was declined."),
        StripeDecline("expired_card", .expiredCard, "Your card has expired.", param: "exp_month"),
        StripeDecline("incorrect_cvc", .incorrectCvc, "Your card's security code is incorrect.", param: "cvc"),
        StripeDecline("processing_error", .processingError, "An error occurred while processing your card. Try again in a little bit."),
        StripeDecline(
            "card_declined", .cardVelocityExceeded,
            "Your card was declined for making repeated attempts too frequently or exceeding its amount limit."),
        StripeDecline("card_declined", .fraudulent, "Your card was declined."),
        StripeDecline("card_declined", .doNotHonor, "Your card was declined."),
        StripeDecline("authentication_required", .authenticationRequired, "Your card was declined. This transaction requires authentication."),
    ]

    /// Stripe's error for this decline code; nil for the mock's own refusals (cryptograms,
    /// captures, …), which Stripe has no test card for.
    public static func `for`(_ code: DeclineCode) -> StripeDecline? {
        all.first { $0.declineCode == code }
    }

    /// `{"type": "card_error", "code", "decline_code", "message", "param"}`.
    public var json: JSONValue {
        .orderedObject([
            ("type", "card_error"), ("code", .string(code)), ("decline_code", .string(declineCode.rawValue)),
            ("message", .string(message)), ("param", .optional(param)),
        ])
    }
}

/// One of Stripe's documented test cards: its number, the `pm_card_…` ids that stand for it,
/// and what confirming a PaymentIntent with it does, on session and with `off_session=true`.
/// The behaviours are triggers of the trigger table, so the card means the same to the
/// in-process mock, to `processor serve` and to the docs.
public struct StripeTestCard: Sendable {
    /// The part of Stripe's testing page (docs.stripe.com/testing) the card comes from.
    public enum Section: String, Sendable, CaseIterable {
        case brands = "Cards by brand"
        case declines = "Declined payments"
        case fraud = "Fraud prevention (Radar, default rules)"
        case threeDSecure = "3-D Secure"
        case balance = "Available balance"
    }

    public let number: String
    /// Stripe's test PaymentMethod ids for the number; the first is the one Stripe documents
    /// today, later ones older names still accepted. Empty when Stripe gives the number only.
    public let paymentMethods: [String]
    /// Stripe's `card.brand`.
    public let brand: String
    /// Stripe's `card.funding`: `credit`, `debit` or `prepaid`.
    public let funding: String
    /// Stripe's `card.country` where its testing page names it; nil otherwise.
    public let country: String?
    public let section: Section
    /// What the card is, in a few words (ours, not Stripe's).
    public let summary: String
    /// What a confirm does without `off_session`.
    public let onSession: MockTrigger
    /// What a confirm with `off_session=true` does.
    public let offSession: MockTrigger

    init(
        _ number: String, _ paymentMethods: [String], _ brand: String, _ funding: String = "credit", country: String? = nil,
        in section: Section, _ summary: String, _ onSession: MockTrigger = .approve, offSession: MockTrigger? = nil
    ) {
        self.number = number
        self.paymentMethods = paymentMethods
        self.brand = brand
        self.funding = funding
        self.country = country
        self.section = section
        self.summary = summary
        self.onSession = onSession
        // A card that asks for 3-D Secure cannot get it off session: Stripe then refuses the
        // payment `authentication_required` (the merchant must bring the payer back).
        self.offSession = offSession ?? (onSession.challengeResult(passed: true) != nil ? .authenticationRequired : onSession)
    }
}

/// Stripe's documented test cards for card payments and 3-D Secure (docs.stripe.com/testing),
/// the one table behind `payment_method=pm_card_…`, test numbers in
/// `payment_method_data[card][number]`, the trigger table's test-card column, `GET
/// /_mock/triggers` and the table in docs/mock-processor.md (checked by a test).
///
/// Left out: the cards-by-country list, disputes, refunds, PINs and captcha cards, the 3-D
/// Secure mobile-challenge numbers (Stripe says they change nothing in API calls), and the Radar
/// address and CVC check cards (their outcome depends on Radar settings this mock does not have).
public enum StripeTestCards {
    public static let all: [StripeTestCard] = [
        // Brands (Stripe documents no funding for the plain ones: they are credit cards there).
        StripeTestCard("4242424242424242", ["pm_card_visa"], "visa", country: "US", in: .brands, "Visa; supports 3-D Secure but is not enrolled, so never asks"),
        StripeTestCard("4000056655665556", ["pm_card_visa_debit"], "visa", "debit", in: .brands, "Visa debit"),
        StripeTestCard("5555555555554444", ["pm_card_mastercard"], "mastercard", in: .brands, "Mastercard"),
        StripeTestCard("2223003122003222", [], "mastercard", in: .brands, "Mastercard, 2-series range"),
        StripeTestCard("5200828282828210", ["pm_card_mastercard_debit"], "mastercard", "debit", in: .brands, "Mastercard debit"),
        StripeTestCard("5105105105105100", ["pm_card_mastercard_prepaid"], "mastercard", "prepaid", in: .brands, "Mastercard prepaid"),
        StripeTestCard(
            "378282246310005", ["pm_card_amex", "pm_card_amex_threeDSecureNotSupported"], "amex", in: .brands,
            "American Express; no 3-D Secure, so it is never asked for"),
        StripeTestCard("371449635398431", [], "amex", in: .brands, "American Express"),
        StripeTestCard("6011111111111117", ["pm_card_discover"], "discover", in: .brands, "Discover"),
        StripeTestCard("6011000990139424", [], "discover", in: .brands, "Discover"),
        StripeTestCard("6011981111111113", [], "discover", "debit", in: .brands, "Discover debit"),
        StripeTestCard("3056930009020004", ["pm_card_diners"], "diners", in: .brands, "Diners Club"),
        StripeTestCard("36227206271667", [], "diners", in: .brands, "Diners Club, 14 digits"),
        StripeTestCard("3566002020360505", ["pm_card_jcb"], "jcb", in: .brands, "JCB"),
        StripeTestCard("6200000000000005", ["pm_card_unionpay"], "unionpay", in: .brands, "UnionPay"),
        StripeTestCard("6200000000000047", [], "unionpay", "debit", in: .brands, "UnionPay debit"),
        StripeTestCard("6205500000000000004", [], "unionpay", in: .brands, "UnionPay, 19 digits"),
        StripeTestCard("4000002500001001", ["pm_card_visa_cartesBancaires"], "visa", country: "FR", in: .brands, "Visa co-branded Cartes Bancaires"),
        StripeTestCard(
            "5555552500001001", ["pm_card_mastercard_cartesBancaires"], "mastercard", country: "FR", in: .brands,
            "Mastercard co-branded Cartes Bancaires"),
        StripeTestCard(
            "4000050360000001", ["pm_card_visa_debit_eftposAuCoBranded"], "visa", "debit", country: "AU", in: .brands,
            "Visa debit co-branded eftpos Australia"),
        StripeTestCard(
            "5555050360000080", ["pm_card_mastercard_debit_eftposAuCoBranded"], "mastercard", "debit", country: "AU", in: .brands,
            "Mastercard debit co-branded eftpos Australia"),
        StripeTestCard(
            "4000051230000072", ["pm_card_debit_visaFsaProductCode", "pm_card_debit_visaHsaProductCode"], "visa", "debit", in: .brands,
            "Visa FSA / HSA (health spending account)"),
        StripeTestCard(
            "5200828282828897", ["pm_card_mastercard_debit_mastercardFsaProductCode"], "mastercard", "debit", in: .brands,
            "Mastercard FSA (health spending account)"),

        // Declines. The `pm_card_chargeDeclined…` ids without `visa_` are this mock's earlier
        // names, kept so existing suites keep working.
        StripeTestCard(
            "4000000000000002", ["pm_card_visa_chargeDeclined", "pm_card_chargeDeclined"], "visa", in: .declines, "generic decline",
            .genericDecline),
        StripeTestCard(
            "4000000000009995", ["pm_card_visa_chargeDeclinedInsufficientFunds", "pm_card_chargeDeclinedInsufficientFunds"], "visa",
            in: .declines, "insufficient funds", .insufficientFunds),
        StripeTestCard(
            "4000000000009987", ["pm_card_visa_chargeDeclinedLostCard", "pm_card_chargeDeclinedLostCard"], "visa", in: .declines,
            "reported lost", .lostCard),
        StripeTestCard(
            "4000000000009979", ["pm_card_visa_chargeDeclinedStolenCard", "pm_card_chargeDeclinedStolenCard"], "visa", in: .declines,
            "reported stolen", .stolenCard),
        StripeTestCard("4000000000000069", ["pm_card_chargeDeclinedExpiredCard"], "visa", in: .declines, "expired", .expiredCard),
        StripeTestCard(
            "4000000000000127", ["pm_card_chargeDeclinedIncorrectCvc"], "visa", in: .declines, "wrong security code", .incorrectCvc),
        StripeTestCard(
            "4000000000000119", ["pm_card_chargeDeclinedProcessingError"], "visa", in: .declines, "issuer processing error", .processingError),
        StripeTestCard(
            "4000000000006975", ["pm_card_visa_chargeDeclinedVelocityLimitExceeded"], "visa", in: .declines,
            "too many attempts or over its amount limit", .cardVelocityExceeded),
        StripeTestCard(
            "4000000000000341", ["pm_card_chargeCustomerFail"], "visa", in: .declines,
            "at Stripe it attaches to a Customer, then every charge fails (this mock has no Customers: every charge fails)",
            .genericDecline),

        // Radar: the outcome under Stripe's default rules, which block the highest risk level.
        StripeTestCard("4100000000000019", ["pm_card_radarBlock"], "visa", in: .fraud, "Radar always blocks it", .fraudulent),
        StripeTestCard(
            "4000000000004954", ["pm_card_riskLevelHighest"], "visa", in: .fraud, "highest risk level: the default rules block it", .fraudulent),
        StripeTestCard(
            "4000000000009235", ["pm_card_riskLevelElevated"], "visa", in: .fraud, "elevated risk level: paid (at most queued for review)"),

        // 3-D Secure. "Passed" is `POST /_mock/3ds/{id} outcome=pass`.
        StripeTestCard(
            "4000002500003155", ["pm_card_authenticationRequiredOnSetup"], "visa", in: .threeDSecure,
            "asks on session; off session only once set up, and this mock keeps no set-up cards", .challenge),
        StripeTestCard(
            "4000002760003184", ["pm_card_authenticationRequired"], "visa", in: .threeDSecure, "asks for every payment, set up or not", .challenge),
        StripeTestCard(
            "4000003800000446", ["pm_card_authenticationRequiredSetupForOffSession"], "visa", in: .threeDSecure,
            "already set up: asks on session, off-session payments go through", .challenge, offSession: .approve),
        StripeTestCard(
            "4000008260003178", ["pm_card_authenticationRequiredChargeDeclinedInsufficientFunds"], "visa", in: .threeDSecure,
            "asks on session, then insufficient funds anyway; off session declined at once", .challengeThenInsufficientFunds,
            offSession: .insufficientFunds),
        StripeTestCard(
            "4000000000003220", ["pm_card_threeDSecure2Required"], "visa", in: .threeDSecure, "3-D Secure 2 required, then paid", .challenge),
        StripeTestCard(
            "4000008400001629", ["pm_card_threeDSecureRequiredChargeDeclined"], "visa", in: .threeDSecure,
            "3-D Secure required, then declined `card_declined`", .challengeThenGenericDecline),
        StripeTestCard(
            "4000008400001280", ["pm_card_threeDSecureRequiredProcessingError"], "visa", in: .threeDSecure,
            "3-D Secure required but its lookup fails: declined `card_declined`", .genericDecline),
        StripeTestCard(
            "4000000000003055", ["pm_card_threeDSecureOptional"], "visa", in: .threeDSecure, "3-D Secure supported, not required: paid"),
        StripeTestCard(
            "4000000000003097", ["pm_card_threeDSecureOptionalProcessingError"], "visa", in: .threeDSecure,
            "3-D Secure supported, not required (it would fail if tried): paid"),
        StripeTestCard(
            "4000000000003063", ["pm_card_threeDSecureRequired"], "visa", in: .threeDSecure,
            "Stripe's older 3-D Secure 1 test card (no longer on its page): required, then paid", .challenge),

        // Balance: paid like any card; Stripe's difference (funds available at once) has no
        // counterpart here.
        StripeTestCard("4000000000000077", ["pm_card_bypassPending"], "visa", country: "US", in: .balance, "paid; at Stripe the funds skip the pending balance"),
        StripeTestCard(
            "4000003720000278", ["pm_card_bypassPendingInternational"], "visa", in: .balance,
            "international; paid; at Stripe the funds skip the pending balance"),
    ]

    /// The test card with this number, or nil for any other number.
    public static func card(number: String) -> StripeTestCard? {
        byNumber[number]
    }

    /// The test card a `pm_card_…` id stands for, or nil for an unknown id.
    public static func card(paymentMethod id: String) -> StripeTestCard? {
        byPaymentMethod[id]
    }

    private static let byNumber: [String: StripeTestCard] = Dictionary(all.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
    private static let byPaymentMethod: [String: StripeTestCard] = Dictionary(
        all.flatMap { card in card.paymentMethods.map { ($0, card) } }, uniquingKeysWith: { first, _ in first })

    // MARK: - What a confirm answers

    /// What confirming an intent (automatic capture) with a card whose behaviour is `trigger`
    /// answers, as `{"trigger", "status", "error", "after_authentication"}`: the intent's status,
    /// Stripe's error (402) or null, and for 3-D Secure what passing the challenge gives.
    public static func outcome(_ trigger: MockTrigger) -> JSONValue {
        var members: [(String, JSONValue)] = [("trigger", .string(trigger.name))]
        members += result(trigger.processedResult)
        if let passed = trigger.challengeResult(passed: true) {
            members.append(("after_authentication", .orderedObject(result(passed))))
        } else {
            members.append(("after_authentication", .null))
        }
        return .orderedObject(members)
    }

    private static func result(_ result: ProcessedResult?) -> [(String, JSONValue)] {
        switch result {
        case .approved?: [("status", "succeeded"), ("error", .null)]
        case .declined(let code)?: [("status", "requires_payment_method"), ("error", StripeDecline.for(code)?.json ?? .null)]
        case .challengeRequired?: [("status", "requires_action"), ("error", .null)]
        case nil: [("status", .null), ("error", .null)]
        }
    }

    /// `GET /_mock/triggers`' `test_cards`: every card with its ids and both outcomes.
    public static var json: JSONValue {
        .array(all.map { card in
            .orderedObject([
                ("number", .string(card.number)), ("payment_methods", .array(card.paymentMethods.map(JSONValue.string))),
                ("brand", .string(card.brand)), ("funding", .string(card.funding)), ("country", .optional(card.country)),
                ("section", .string(card.section.rawValue)), ("summary", .string(card.summary)),
                ("confirm", outcome(card.onSession)), ("off_session", outcome(card.offSession)),
            ])
        })
    }

    // MARK: - The docs table

    /// The tables of docs/mock-processor.md's "Test payment methods and cards", exactly as
    /// the file holds them between its `test-cards` markers.
    public static func markdown() -> String {
        var lines: [String] = []
        for section in StripeTestCard.Section.allCases {
            let cards = all.filter { $0.section == section }
            guard !cards.isEmpty else { continue }
            if !lines.isEmpty { lines.append("") }
            lines.append("**\(section.rawValue)**")
            lines.append("")
            lines.append("| number | `payment_method` | brand | funding | country | confirm | with `off_session=true` | what it is |")
            lines.append("|---|---|---|---|---|---|---|---|")
            for card in cards {
                let cells = [
                    card.number, card.paymentMethods.map { "`\($0)`" }.joined(separator: ", "), card.brand, card.funding,
                    card.country ?? "", describe(card.onSession), card.offSession == card.onSession ? "the same" : describe(card.offSession),
                    card.summary,
                ]
                lines.append("| " + cells.map { $0.isEmpty ? "—" : $0 }.joined(separator: " | ") + " |")
            }
        }
        lines.append("")
        lines.append("**The declines' errors** (402 `card_error`, the intent back to `requires_payment_method` with `last_payment_error`)")
        lines.append("")
        lines.append("| `code` | `decline_code` | `message` | `param` |")
        lines.append("|---|---|---|---|")
        for decline in StripeDecline.all {
            lines.append("| `\(decline.code)` | `\(decline.declineCode.rawValue)` | \(decline.message) | \(decline.param.map { "`\($0)`" } ?? "—") |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A confirm's outcome in a few words: `approved`, `402 card_declined / insufficient_funds`,
    /// or `requires_action` and what passing gives.
    static func describe(_ trigger: MockTrigger) -> String {
        func words(_ result: ProcessedResult?) -> String {
            switch result {
            case .approved?: return "approved"
            case .declined(let code)?:
                guard let decline = StripeDecline.for(code) else { return "declined `\(code.rawValue)`" }
                return "402 `\(decline.code)` / `\(decline.declineCode.rawValue)`"
            case .challengeRequired?: return "`requires_action`"
            case nil: return trigger.name
            }
        }
        let first = words(trigger.processedResult)
        guard let passed = trigger.challengeResult(passed: true) else { return first }
        return first + "; passed: " + words(passed)
    }
}

extension MockTrigger {
    /// What the processor decides for this trigger, when it processes the request at once
    /// (the test cards' triggers all do); nil for faults, lost and delayed answers.
    var processedResult: ProcessedResult? {
        if case .processed(let result, .immediate) = effect { return result }
        return nil
    }
}
