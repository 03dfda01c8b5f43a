/// Renders docs/state-machine.md from `PaymentTransitionTable`: a Mermaid state diagram and
/// the full transition table. A test compares the file with this output, so the document
/// always says what the code does.
public enum StateMachineDocument {
    /// The command that rewrites the document after a change to the table.
    public static let regenerateCommand = "PAYPANEL_UPDATE_DOCS=1 swift test --filter StateMachineDocumentTests"

    /// The whole document.
    public static func markdown() -> String {
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

            "Work" is what the executor (`CheckoutService`) runs after the commit. Timers and outbox
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
        text += "\n" + guardsAndTimers
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
        | `invalid_resolution` | an operator resolution with an impossible amount or deadline |

        ## Timers

        | timer | set when | fires |
        |---|---|---|
        | `abandonment` | the intent waits for a payment method (\(hours(policy.abandonAfter))) | canceled (abandoned) |
        | `challenge_expiry` | a 3-D Secure challenge opens (\(Int(policy.challengeTimeout / 60)) min) | the attempt fails |
        | `sheet_deadline` | an attempt answers an Apple Pay sheet (\(Int(policy.sheetAnswerDeadline)) s of the 30 s) | the sheet is answered failure; a later approval is reversed |
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
