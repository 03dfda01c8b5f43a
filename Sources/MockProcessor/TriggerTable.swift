import PayPanel

/// One line of the trigger table: how to ask for a behaviour and what the processor then does.
public struct TriggerTableRow: Sendable, Equatable {
    /// The trigger name (scenario, holder name or chain step), or a rule in parentheses.
    public let trigger: String
    /// Stripe test card numbers that choose it.
    public let cards: [String]
    /// What `authorize` answers.
    public let authorize: String
    /// What later operations (challenge, capture, void, refund, retries) do.
    public let later: String
    /// What `lookup(reference:operation: .authorize)` finds.
    public let lookup: String

    /// `{"trigger", "cards", "authorize", "later", "lookup"}`.
    public var json: JSONValue {
        ["trigger": .string(trigger), "cards": .array(cards.map(JSONValue.string)), "authorize": .string(authorize),
         "later": .string(later), "lookup": .string(lookup)]
    }
}

/// The trigger table for people writing tests against the mock processor. Built from the same
/// trigger list and test-card list the processor selects with, so `paypanel processor triggers`
/// and docs/mock-processor.md (checked by a test) cannot drift from the code.
public enum TriggerTable {
    /// Every trigger in catalog order, then the processor's own rules.
    public static func rows(configuration: MockProcessorConfiguration = MockProcessorConfiguration()) -> [TriggerTableRow] {
        MockTrigger.catalog.map { row(for: $0, configuration: configuration) } + ruleRows(configuration: configuration)
    }

    private static func row(for trigger: MockTrigger, configuration: MockProcessorConfiguration) -> TriggerTableRow {
        let normally = "capture, void and refund succeed"
        let (authorize, later, lookup): (String, String, String)
        switch trigger {
        case .approve: (authorize, later, lookup) = ("approved", normally, "approved")
        case .genericDecline: (authorize, later, lookup) = ("declined `generic_decline`", "", "declined")
        case .insufficientFunds:
            (authorize, later, lookup) = ("declined `insufficient_funds` (soft: the payer may try another card)", "", "declined")
        case .lostCard, .stolenCard:
            (authorize, later, lookup) = (
                "declined `\(trigger == .lostCard ? "lost_card" : "stolen_card")` (the payer sees the generic decline message)", "",
                "declined")
        case .expiredCard: (authorize, later, lookup) = ("declined `expired_card`", "", "declined")
        case .processingError: (authorize, later, lookup) = ("declined `processing_error`", "", "declined")
        case .doNotHonor: (authorize, later, lookup) = ("declined `do_not_honor`", "", "declined")
        case .incorrectCvc: (authorize, later, lookup) = ("declined `incorrect_cvc`", "", "declined")
        case .cardVelocityExceeded: (authorize, later, lookup) = ("declined `card_velocity_exceeded`", "", "declined")
        case .fraudulent:
            (authorize, later, lookup) = ("declined `fraudulent` (the payer sees the generic decline message)", "", "declined")
        case .authenticationRequired:
            (authorize, later, lookup) = (
                "declined `authentication_required` (what `off_session=true` gets from a card that needs 3-D Secure)", "", "declined")
        case .challenge:
            (authorize, later, lookup) = (
                "`challengeRequired` (3-D Secure)", "challenge passed → approved; failed → declined `authentication_failed`",
                "`challengeRequired`, then the challenge's result")
        case .challengeThenInsufficientFunds, .challengeThenGenericDecline:
            let code = trigger == .challengeThenInsufficientFunds ? "insufficient_funds" : "generic_decline"
            (authorize, later, lookup) = (
                "`challengeRequired` (3-D Secure)", "challenge passed → declined `\(code)`; failed → declined `authentication_failed`",
                "`challengeRequired`, then the challenge's result")
        case .timeoutThenApproved:
            (authorize, later, lookup) = (
                "no answer: `unknown` when the caller's timeout runs out; approved meanwhile",
                "a retry with the same reference gets the approval; " + normally, "approved")
        case .timeoutThenDeclined:
            (authorize, later, lookup) = (
                "no answer: `unknown` when the caller's timeout runs out; declined `generic_decline` meanwhile",
                "a retry with the same reference gets the decline", "declined")
        case .timeoutThenNotReceived:
            (authorize, later, lookup) = (
                "no answer: `unknown` when the caller's timeout runs out; the request never arrived (no entry)",
                "a retry with the same reference is a new request", "not found")
        case .http500BeforeProcessing:
            (authorize, later, lookup) = (
                "HTTP 500: `unknown`; not processed (no entry)", "a retry with the same reference is a new request", "not found")
        case .http500AfterProcessing:
            (authorize, later, lookup) = (
                "HTTP 500: `unknown`, **but approved**", "a retry with the same reference gets the approval; " + normally,
                "approved")
        case .http503, .http429:
            (authorize, later, lookup) = (
                "`notProcessed` (HTTP \(trigger == .http503 ? "503" : "429"), retryable; no entry)",
                "a retry with the same reference is a new request", "not found")
        case .slow:
            (authorize, later, lookup) = (
                "approved, answered after n seconds (1–\(MockTrigger.maximumSlowSeconds)); past the caller's timeout the approval is still recorded and the caller gets `unknown`",
                normally, "approved")
        case .captureFail:
            (authorize, later, lookup) = ("approved", "every capture declined `capture_failed`; the authorization can still be voided", "approved")
        case .captureTimeout:
            (authorize, later, lookup) = (
                "approved",
                "the capture goes through but its answer is lost (`unknown`); lookup(capture) finds it, a retry with the same amount gets it",
                "approved")
        case .captureFailLate:
            (authorize, later, lookup) = (
                "approved",
                "every capture declined `capture_failed`, and its answer is lost (`unknown`); lookup(capture) and the webhook `payment_intent.payment_failed` tell",
                "approved")
        case .voidFail: (authorize, later, lookup) = ("approved", "every void declined `void_failed`", "approved")
        case .refundAsync:
            (authorize, later, lookup) = (
                "approved",
                "refunds answer `pending` and succeed \(configuration.refundSettlementDelay.spoken) later (lookup(refund) then finds them approved)",
                "approved")
        case .refundFail: (authorize, later, lookup) = ("approved", "every refund declined `refund_failed`", "approved")
        }
        return TriggerTableRow(
            trigger: trigger.tableName, cards: TestCards.numbers(for: trigger), authorize: authorize, later: later, lookup: lookup)
    }

    /// The processor's own rules, which no trigger overrides (except that a scenario or holder
    /// trigger is chosen before the card's expiry is looked at).
    private static func ruleRows(configuration: MockProcessorConfiguration) -> [TriggerTableRow] {
        [
            TriggerTableRow(
                trigger: "(any other valid card number)", cards: [], authorize: "approved",
                later: "capture, void and refund succeed", lookup: "approved"),
            TriggerTableRow(
                trigger: "(card expiry month in the past)", cards: [], authorize: "declined `expired_card`", later: "",
                lookup: "declined"),
            TriggerTableRow(
                trigger: "(same cryptogram twice)", cards: [], authorize: "declined `invalid_cryptogram`", later: "",
                lookup: "declined"),
            TriggerTableRow(
                trigger: "(cryptogram older than \(configuration.cryptogramLifetime.spoken))", cards: [],
                authorize: "declined `expired_cryptogram`", later: "", lookup: "declined"),
        ]
    }

    /// The table as Markdown, exactly as docs/mock-processor.md holds it.
    public static func markdown(configuration: MockProcessorConfiguration = MockProcessorConfiguration()) -> String {
        var lines = ["| trigger | test cards | authorize | later | lookup |", "|---|---|---|---|---|"]
        for row in rows(configuration: configuration) {
            let trigger = row.trigger.hasPrefix("(") ? row.trigger : "`\(row.trigger)`"
            let cells = [trigger, row.cards.joined(separator: ", "), row.authorize, row.later, row.lookup]
            lines.append("| " + cells.map { $0.isEmpty ? "—" : $0 }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
