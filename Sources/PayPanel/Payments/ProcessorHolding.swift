import Foundation

/// What the processor's ledger holds for an intent's current attempt: the evidence an operator
/// resolution is checked against (`allows(_:)`), recorded with it in the history.
///
/// Texts from the processor (reasons, its ids) are redacted when the value is made, so what
/// the history stores is exactly what the machine saw.
public enum ProcessorHolding: Sendable, Equatable {
    /// The processor never authorized the attempt: no record, a decline, a request it did not
    /// process, or a 3-D Secure challenge still open. `reason` says which.
    case nothing(reason: String)
    /// A live authorization: approved, neither captured nor voided.
    case authorization(HeldAuthorization)
    /// Authorized, then voided: the money was released.
    case voided
    /// Captured: the money moved.
    case captured(Amount)
    /// The processor could not say (the lookup got no answer, or the outcome is open there).
    case unknown(reason: String)

    /// A holding that says nothing was held, for `reason` (redacted).
    public static func nothingHeld(_ reason: String) -> ProcessorHolding { .nothing(reason: SensitiveDigits.redacted(reason)) }

    /// A holding the processor could not tell, for `reason` (redacted).
    public static func notKnown(_ reason: String) -> ProcessorHolding { .unknown(reason: SensitiveDigits.redacted(reason)) }

    /// The holding the processor's lookups describe: `authorization` is the lookup of the
    /// attempt's authorization; `capture` and `void` the lookups of its capture and void,
    /// made only when the authorization was approved (nil: not asked).
    public static func from(authorization: LookupResult, capture: LookupResult?, void: LookupResult?) -> ProcessorHolding {
        let approval: ProcessorApproval
        switch authorization {
        case .notFound: return .nothingHeld("it has no record of the authorization")
        case .unavailable(let reason): return .notKnown("the lookup of the authorization got no answer (\(reason))")
        case .found(.approved(let approved)): approval = approved
        case .found(.declined(let code)): return .nothingHeld("it declined the authorization (\(code))")
        case .found(.notProcessed(let reason)): return .nothingHeld("it did not process the authorization (\(reason))")
        case .found(.challengeRequired): return .nothingHeld("the authorization still waits for its 3-D Secure challenge")
        case .found(.pending): return .notKnown("it reports the authorization pending")
        case .found(.unknown(let reason)): return .notKnown("it does not know the authorization's outcome (\(reason))")
        }
        switch capture {
        case .found(.approved(let captured))?: return .captured(captured.amount)
        case .unavailable(let reason)?: return .notKnown("the lookup of the capture got no answer (\(reason))")
        case .found(.pending)?, .found(.unknown)?: return .notKnown("the outcome of the capture is open at the processor")
        case .notFound?, .found?, nil: break
        }
        switch void {
        case .found(.approved)?: return .voided
        case .unavailable(let reason)?: return .notKnown("the lookup of the void got no answer (\(reason))")
        case .found(.pending)?, .found(.unknown)?: return .notKnown("the outcome of the void is open at the processor")
        case .notFound?, .found?, nil: break
        }
        return .authorization(HeldAuthorization(amount: approval.amount, processorID: approval.processorID, expiresAt: approval.expiresAt))
    }

    /// True when the ledger agrees with `resolution`; any other resolution must be forced:
    ///
    /// | processor holds | retry | canceled | authorized | succeeded |
    /// |---|---|---|---|---|
    /// | nothing | ✓ | ✓ | – | – |
    /// | an authorization | – | ✓ (voided first) | ✓ | – |
    /// | a voided authorization | ✓ | ✓ | – | – |
    /// | a capture | – | – | – | ✓ |
    /// | unknown | – | – | – | – |
    public func allows(_ resolution: IntentResolution) -> Bool {
        switch (resolution, self) {
        case (.retry, .nothing), (.retry, .voided): true
        case (.canceled, .nothing), (.canceled, .voided), (.canceled, .authorization): true
        case (.authorized, .authorization): true
        case (.succeeded, .captured): true
        default: false
        }
    }

    /// The resolutions the ledger allows, in `IntentResolution` order.
    public var allowedResolutions: [IntentResolution] {
        IntentResolution.allCases.filter(allows)
    }

    /// `nothing`, `authorization`, `voided`, `captured`, `unknown`.
    public var name: String {
        switch self {
        case .nothing: "nothing"
        case .authorization: "authorization"
        case .voided: "voided"
        case .captured: "captured"
        case .unknown: "unknown"
        }
    }

    /// What the processor says about `attemptID`, as a clause: "the processor holds an
    /// authorization of 10.00 USD for att_… (auth_000001)".
    public func summary(attemptID: String) -> String {
        switch self {
        case .nothing(let reason): "the processor holds nothing for \(attemptID): \(reason)"
        case .authorization(let held):
            "the processor holds an authorization of \(held.amount) for \(attemptID)\(held.processorID.map { " (\($0))" } ?? ""), neither captured nor voided"
        case .voided: "the processor authorized \(attemptID) and voided it"
        case .captured(let amount): "the processor captured \(amount) of \(attemptID)"
        case .unknown(let reason): "the processor could not say what it holds for \(attemptID): \(reason)"
        }
    }
}

/// An authorization the processor holds: its amount, its id there, and when it lapses.
public struct HeldAuthorization: Sendable, Equatable {
    public let amount: Amount
    /// The processor's id for it (redacted like every processor text).
    public let processorID: String?
    /// The last moment the processor lets it be captured, when it says.
    public let expiresAt: Date?

    /// An authorization of `amount`; `processorID` is redacted.
    public init(amount: Amount, processorID: String?, expiresAt: Date?) {
        self.amount = amount
        self.processorID = processorID.map(SensitiveDigits.redacted)
        self.expiresAt = expiresAt
    }
}

extension ProcessorHolding: JSONRepresentable {
    /// `{"holding": "authorization", "amount", "currency", "processorId", "expiresAt"}`,
    /// `{"holding": "nothing", "reason"}`, `{"holding": "captured", "amount", "currency"}`, …
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("holding", .string(name))]
        switch self {
        case .nothing(let reason), .unknown(let reason):
            members.append(("reason", .string(reason)))
        case .authorization(let held):
            members += [
                ("amount", .number(held.amount.minorUnits)), ("currency", .string(held.amount.currency.code)),
                ("processorId", .optional(held.processorID)), ("expiresAt", .optional(held.expiresAt.map(Timestamp.format))),
            ]
        case .captured(let amount):
            members += [("amount", .number(amount.minorUnits)), ("currency", .string(amount.currency.code))]
        case .voided:
            break
        }
        return .orderedObject(members)
    }
}
