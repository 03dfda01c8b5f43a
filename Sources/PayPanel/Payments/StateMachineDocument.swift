/// Renders docs/state-machine.md from `PaymentTransitionTable`: a Mermaid state diagram and
/// the full transition table. A test compares the file with this output, so the document
/// always says what the code does.
package enum StateMachineDocument {
    /// The command that rewrites the document after a change to the table.
    package static let regenerateCommand = "PAYPANEL_UPDATE_DOCS=1 swift test --filter StateMachineDocumentTests"

    /// The whole document.
    package static func markdown() -> String {
        var text = """
            # The payment state machine

            <!-- Generated from Sources/PayPanel/Payments/PaymentTransitionTable.swift. Do not edit: run
                 \(regenerateCommand) -->

            `PaymentStateMachine` (Sources/PayPanel/Payments/) is pure: no I/O, no clock, no randomness.
            Each event is applied by `PaymentLedger` in one write transaction of the `PaymentStore` (expected
            version, guard, event row with the next version, intent row, timers, outbox row); the
            processor calls it asks for run afterwards, between transactions. Every accepted transition
            is listed below; **any other event is rejected** with a typed `PaymentRejection` and changes
            nothing. A test drives the machine through every situation × event pair and checks it
            against this table.

            ## Diagram

            ```mermaid
            stateDiagram-v2

            """
        text += diagram()
        text += "```\n\n"
        text += """
            ## Transitions

            "Work" is what the executor (`PaymentService`) runs after the commit. Timers and outbox
            messages are written in the transition's own transaction: every change of status writes
            one outbox message (`payment_intent.*`), every change of a refund's status one
            `refund.*` message.

            | from | event | to | work | note |
            |---|---|---|---|---|

            """
        for situation in PaymentTransitionTable.Situation.allCases {
            for rule in PaymentTransitionTable.rules where rule.situation == situation {
                let work = rule.work.isEmpty ? "" : rule.work.joined(separator: ", ")
                text += "| \(situation.label) | \(rule.event.label) | \(rule.to.rawValue) | \(work) | \(rule.note) |\n"
            }
        }
        text += "\n" + resolutions
        text += "\n" + guardsAndTimers
        return text
    }

    /// Which operator resolutions the processor's ledger allows (`ProcessorHolding.allows`).
    static var resolutions: String {
        // Only the kind of holding matters to `allows`; the amount is any amount.
        let sample = Currency.all.first.map { Amount(minorUnits: 1, currency: $0) }
        let holdings: [(String, ProcessorHolding?)] = [
            ("nothing (no record, a decline, a challenge still open)", .nothingHeld("")),
            ("a live authorization", sample.map { .authorization(HeldAuthorization(amount: $0, processorID: nil, expiresAt: nil)) }),
            ("an authorization it voided", .voided),
            ("a capture", sample.map { .captured($0) }),
            ("unknown (the lookup got no answer)", .notKnown("")),
        ]
        var text = """
            ## Operator resolutions

            `requires_merchant_action` is left only by an operator (`paypanel payments resolve ID --as
            authorized|succeeded|canceled|retry --note TEXT [--force]`). The payment service first looks the
            current attempt up at the processor (its authorization, then its capture and void) and records
            what the ledger holds with the resolution, the note, the operator's name and whether it was
            forced. A resolution the ledger does not allow (–) is refused with
            `resolution_contradicts_processor` unless it is forced; a forced one is recorded as such.

            | the processor holds | \(IntentResolution.allCases.map(\.rawValue).joined(separator: " | ")) |
            |---|\(String(repeating: "---|", count: IntentResolution.allCases.count))

            """
        for (label, holding) in holdings {
            guard let holding else { continue }
            let cells = IntentResolution.allCases.map { holding.allows($0) ? "✓" : "–" }
            text += "| \(label) | \(cells.joined(separator: " | ")) |\n"
        }
        text += """

            - **authorized**: the processor's authorization is recorded; `capture_before` is 7 days from
              when the attempt was opened, cut to the processor's expiry (a resolution days later does not
              extend the window). Manual capture waits in `requires_capture` with its expiry timer;
              automatic capture is captured at once, as after an approval.
            - **succeeded**: captured = what the processor captured; forced without a capture on record,
              the authorized amount.
            - **canceled**: reason `operator`; an authorization the processor still holds is voided first,
              exactly like a merchant's cancel (a refused void leaves it in `requires_capture`).
            - **retry**: the attempt ends (`voided` if the processor voided it, else `failed`), `last_error`
              is `resolved_by_operator`, and the payer may pay again (refused once the attempts are used up).

            """
        return text
    }

    /// The state diagram: one edge per pair of distinct statuses, labelled with its events.
    static func diagram() -> String {
        var lines = ["    [*] --> requires_payment_method : created"]
        var edges: [(from: PaymentStatus, to: PaymentStatus, events: [String])] = []
        for rule in PaymentTransitionTable.rules where rule.situation.status != rule.to {
            let event = rule.event.rawValue.replacingOccurrences(of: "_", with: " ")
            let name = operationName(rule.situation).map { "\($0) \(event)" } ?? event
            if let index = edges.firstIndex(where: { $0.from == rule.situation.status && $0.to == rule.to }) {
                if !edges[index].events.contains(name) { edges[index].events.append(name) }
            } else {
                edges.append((rule.situation.status, rule.to, [name]))
            }
        }
        for edge in edges {
            lines.append("    \(edge.from.rawValue) --> \(edge.to.rawValue) : \(edge.events.joined(separator: ", "))")
        }
        for status in PaymentStatus.allCases where status.isTerminal {
            lines.append("    \(status.rawValue) --> [*]")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Which call a processor answer in `situation` is for, to tell the diagram's edges apart.
    private static func operationName(_ situation: PaymentTransitionTable.Situation) -> String? {
        switch situation {
        case .authorizing, .authorizingAutomatic, .authorizingWithSheet, .authorizingSheetFailed, .completingChallenge: "auth"
        case .capturing: "capture"
        case .voiding: "void"
        case .reversing: "reversal"
        default: nil
        }
    }

    private static func hours(_ interval: Double) -> String { "\(Int(interval / 3600)) h" }

    private static var guardsAndTimers: String {
        let policy = PaymentPolicy.standard
        return """
        ## Guards (rejections)

        | code | when |
        |---|---|
        | `payment_intent_unexpected_state` | the event does not apply in this state; canceled, expired and succeeded intents never change state (a succeeded one keeps its refund ledger) |
        | `payment_intent_operation_in_flight` | a processor call is in flight: wait for its outcome or reconcile |
        | `processor_answer_not_expected` | an answer or lookup result for a call the intent is not waiting on (late or duplicated), or an outcome that makes no sense for the call |
        | `attempt_limit_reached` | more attempts than `PaymentPolicy.maximumAttempts` (\(policy.maximumAttempts)) |
        | `amount_mismatch` | the card or token is for another amount or currency than the intent |
        | `attempt_already_exists`, `attempt_not_found` | attempt ids are new for every attempt; challenges name the current attempt |
        | `amount_too_large` | capture of 0, or of more than the capturable amount |
        | `charge_expired_for_capture` | capture at or after `capture_before` |
        | `refund_amount_invalid`, `refund_exceeds_captured_amount` | refunds are above zero, and pending + succeeded refunds never exceed the captured amount (checked inside the serialized write) |
        | `refund_already_exists`, `refund_not_found`, `refund_not_pending` | refund ids are new; answers must be for a pending refund |
        | `invalid_resolution` | an operator resolution the intent cannot take: an amount above the intent's, a lapsed authorization, a retry with no attempts left |
        | `resolution_contradicts_processor` | an operator resolution the processor's ledger contradicts (succeeded without a capture there, authorized without a live authorization, retry while money is held…), not forced |

        ## Timers

        | timer | set when | fires |
        |---|---|---|
        | `abandonment` | the intent waits for a payment method (\(hours(policy.abandonAfter))) | canceled (abandoned) |
        | `challenge_expiry` | a 3-D Secure challenge opens (\(Int(policy.challengeTimeout / 60)) min) | the attempt fails |
        | `sheet_deadline` | an attempt answers an Apple Pay sheet (\(Int(policy.sheetAnswerDeadline)) s of the 30 s) | the sheet is answered failure; a later approval is reversed (the device answered earlier, with the outcome still unknown, records the same answer at once: `sheet_answer_due`) |
        | `authorization_expiry` | the intent enters requires_capture (at `capture_before`) | expired, with a best-effort void |
        | `reconciliation` | a call goes in flight or its outcome is unknown (\(policy.reconciliationDelays.map { "\(Int($0)) s" }.joined(separator: ", ")), then the last again) | the executor looks the call up and feeds the result back |

        An unknown outcome (timeout, ambiguous 5xx) is never taken as a failure. An authorization
        the processor has no record of fails only after the grace period (\(Int(policy.reconciliationGrace / 60)) min): the card data is
        gone, so it cannot be sent again, and the request may still be in transit. A capture, void,
        refund or challenge completion the processor has no record of is sent again at once with the
        same reference (it needs no card data, and the processor counts it once). Lookups that stay
        inconclusive end in `requires_merchant_action` after `maximumReconciliationLookups` (\(policy.maximumReconciliationLookups)).

        """
    }
}
