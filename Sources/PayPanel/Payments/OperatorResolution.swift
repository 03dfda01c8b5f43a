import Foundation

/// How an operator resolves what the program could not decide alone: an intent in
/// `requires_merchant_action` (`intent`), or a refund in `requires_merchant_action` (`refund`).
package enum OperatorResolution: Sendable, Equatable {
    /// One of the four ways out of `requires_merchant_action` (docs/state-machine.md).
    case intent(IntentResolution)
    /// A refund that requires merchant action did, or did not, go through.
    case refund(refundID: String, succeeded: Bool)

    /// The snake_case name stored in the history: `retry_payment`, `mark_canceled`,
    /// `mark_authorized`, `mark_succeeded`, `mark_refund_succeeded`, `mark_refund_failed`.
    package var name: String {
        switch self {
        case .intent(let resolution): resolution.storedName
        case .refund(_, let succeeded): succeeded ? "mark_refund_succeeded" : "mark_refund_failed"
        }
    }
}

/// The ways out of `requires_merchant_action`, by the names operators use
/// (`paypanel payments resolve ID --as …`). Which of them the processor's ledger allows is
/// `ProcessorHolding.allows(_:)`; `PaymentStateMachine` applies the rule.
public enum IntentResolution: String, Sendable, CaseIterable {
    /// The processor holds a valid authorization: `requires_capture` (manual capture), or a
    /// capture at once (automatic capture, as after an approval).
    case authorized
    /// The processor captured: `succeeded`, with what it captured.
    case succeeded
    /// `canceled` (reason `operator`); an authorization the processor still holds is voided first.
    case canceled
    /// No money is held: the attempt ends and the intent waits for another payment method.
    case retry

    /// The name in the history (`PaymentEvent.data`).
    var storedName: String {
        switch self {
        case .authorized: "mark_authorized"
        case .succeeded: "mark_succeeded"
        case .canceled: "mark_canceled"
        case .retry: "retry_payment"
        }
    }

    /// The resolution stored as `name` in the history.
    init?(storedName name: String) {
        guard let resolution = IntentResolution.allCases.first(where: { $0.storedName == name }) else { return nil }
        self = resolution
    }
}

/// Who resolved, why, and on what evidence. It is kept in the history with the resolution, so
/// the record of an override says who overrode what the processor said, and why.
///
/// The note and the operator's name are free text: bounded, printable, and refused when they
/// hold what looks like a card number (`SensitiveDigits`); messages quote them with
/// `JSONWriter.quoted`.
public struct OperatorRecord: Sendable, Equatable {
    /// The longest note kept.
    public static let maximumNoteLength = 500
    /// The longest operator name kept.
    public static let maximumActorLength = 100

    /// Why: what the operator checked and decided (required).
    public let note: String
    /// Who: the operator's name.
    public let actor: String
    /// True when the operator overrode what the processor's ledger says.
    public let forced: Bool
    /// What the processor's ledger held for the intent's current attempt when the operator
    /// resolved it; nil when it was not asked (then only a forced resolution is accepted).
    public let processor: ProcessorHolding?

    /// Checks the note and the name; throws `invalid_resolution_note` or
    /// `invalid_operator_name` with the reason.
    public init(note: String, actor: String, forced: Bool = false, processor: ProcessorHolding? = nil) throws(PaymentInputError) {
        self.note = try Self.checked(note, what: "note", field: "note", code: "invalid_resolution_note", limit: Self.maximumNoteLength)
        self.actor = try Self.checked(
            actor, what: "operator name", field: "operator", code: "invalid_operator_name", limit: Self.maximumActorLength)
        self.forced = forced
        self.processor = processor
    }

    /// The same record with what the processor's ledger says.
    public func with(processor holding: ProcessorHolding?) -> OperatorRecord {
        OperatorRecord(checkedNote: note, actor: actor, forced: forced, processor: holding)
    }

    private init(checkedNote note: String, actor: String, forced: Bool, processor: ProcessorHolding?) {
        self.note = note
        self.actor = actor
        self.forced = forced
        self.processor = processor
    }

    /// `text` when it is 1 to `limit` printable characters, not only spaces, and holds no card
    /// number; `field` is the request's name for it.
    private static func checked(_ text: String, what: String, field: String, code: String, limit: Int) throws(PaymentInputError) -> String {
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw PaymentInputError(code: code, message: "the \(what) is empty: say in a few words what was checked and decided", field: field)
        }
        guard text.count <= limit else {
            throw PaymentInputError(code: code, message: "the \(what) is \(text.count) characters long; keep it to \(limit)", field: field)
        }
        guard PrintableText.isPrintableLine(text) else {
            throw PaymentInputError(
                code: code, message: "the \(what) \(JSONWriter.quoted(text)) \(PrintableText.reason)",
                field: field)
        }
        do {
            try SensitiveDigits.check(text, field: field)
        } catch {
            throw PaymentInputError(error)
        }
        return text
    }
}
