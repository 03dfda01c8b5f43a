import Foundation

/// What `reconcile()` did: each lookup with what the processor said, each timer fired.
public struct ReconciliationReport: Sendable, JSONRepresentable {
    /// One call looked up: what the processor said, and the intent's status before and after.
    public struct LookupEntry: Sendable, JSONRepresentable {
        public let intentID: String
        public let call: ProcessorCall
        public let finding: LookupResult
        public let statusBefore: PaymentStatus?
        public let statusAfter: PaymentStatus?

        /// `approved`, `declined`, `pending`, `challenge_required`, `not_found`, `unavailable`…
        public var findingName: String {
            switch finding {
            case .found(let outcome): outcome.eventSuffix
            case .notFound: "not_found"
            case .unavailable: "unavailable"
            }
        }

        public var json: JSONValue {
            .orderedObject([
                ("intentId", .string(intentID)), ("operation", .string(call.operationName)), ("reference", .string(call.reference)),
                ("finding", .string(findingName)), ("statusBefore", .optional(statusBefore?.rawValue)),
                ("statusAfter", .optional(statusAfter?.rawValue)),
            ])
        }
    }

    /// One timer fired, and the intent's status before and after.
    public struct TimerEntry: Sendable, JSONRepresentable {
        public let intentID: String
        public let kind: PaymentTimer.Kind
        public let reference: String
        public let statusBefore: PaymentStatus?
        public let statusAfter: PaymentStatus?

        public var json: JSONValue {
            .orderedObject([
                ("intentId", .string(intentID)), ("timer", .string(kind.rawValue)), ("reference", .string(reference)),
                ("statusBefore", .optional(statusBefore?.rawValue)), ("statusAfter", .optional(statusAfter?.rawValue)),
            ])
        }
    }

    /// An intent whose lookup or timer failed; the others were reconciled all the same.
    public struct Failure: Sendable, JSONRepresentable {
        public let intentID: String
        /// The attempt or refund the lookup or timer was about ("" for the intent itself).
        public let reference: String
        /// The error's stable code (`PayPanelError.code`), or `internal_error`.
        public let code: String
        public let message: String

        init(intentID: String, reference: String, error: any Error) {
            self.intentID = intentID
            self.reference = reference
            let known = error as? any PayPanelError
            self.code = known?.code ?? "internal_error"
            self.message = known?.message ?? String(describing: error)
        }

        public var json: JSONValue {
            .orderedObject([
                ("intentId", .string(intentID)), ("reference", .string(reference)), ("code", .string(code)), ("message", .string(message)),
            ])
        }
    }

    /// Every call looked up, in the order they were.
    public var lookups: [LookupEntry] = []
    /// Every timer fired that still applied.
    public var timers: [TimerEntry] = []
    /// Intents that could not be reconciled this time (run again, or look at them).
    public var failures: [Failure] = []

    /// `{"lookups": [...], "timers": [...], "failures": [...]}`.
    public var json: JSONValue {
        .orderedObject([
            ("lookups", .array(lookups.map(\.json))), ("timers", .array(timers.map(\.json))), ("failures", .array(failures.map(\.json))),
        ])
    }
}
