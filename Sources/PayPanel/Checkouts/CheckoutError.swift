/// Why a checkout operation was refused. Nothing was changed.
public struct CheckoutError: PayPanelError, Equatable {
    public enum Reason: Sendable, Equatable {
        case notFound(String)
        /// The parameters break rules: every violation, with its field path.
        case invalidParameters(ValidationReport)
        /// Only an open checkout can be paid, updated or canceled.
        case notOpen(id: String, status: CheckoutStatus)
        /// The amount is not one of the panel's segments.
        case amountNotOffered(amount: Int64, options: [Int64], currency: String)
        /// Someone else changed the checkout meanwhile: reload it and try again.
        case versionConflict(String)
        /// A payment of this checkout is in flight, or its outcome is still unknown.
        case paymentInProgress(id: String, intentID: String?)
        /// The device answered a 3-D Secure challenge, but the checkout's payment is not waiting for one.
        case noChallenge(id: String)
    }

    public let reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var code: String {
        switch reason {
        case .notFound: "checkout_not_found"
        case .invalidParameters: "invalid_checkout"
        case .notOpen: "checkout_not_open"
        case .amountNotOffered: "amount_not_offered"
        case .versionConflict: "version_conflict"
        case .paymentInProgress: "payment_in_progress"
        case .noChallenge: "no_challenge_pending"
        }
    }

    public var message: String {
        switch reason {
        case .notFound(let id):
            "no checkout \(JSONWriter.quoted(SensitiveDigits.redacted(id))): check the id the create call returned"
        case .invalidParameters(let report):
            "the checkout is not valid: " + report.errors.map(\.description).joined(separator: "; ")
        case .notOpen(let id, let status):
            "checkout \(id) is \(status.rawValue): only an open checkout can be paid, updated or canceled"
        case .amountNotOffered(let amount, let options, let currency):
            "\(SensitiveDigits.redacted(String(amount))) is not one of checkout's amounts: choose \(options.map(String.init).joined(separator: ", ")) (minor units of \(currency))"
        case .versionConflict(let id):
            "checkout \(id) changed while this request was working on it: reload it and try again"
        case .paymentInProgress(let id, let intentID):
            "a payment of checkout \(id) is in progress\(intentID.map { " (payment intent \($0))" } ?? ""): wait for its outcome before paying again"
        case .noChallenge(let id):
            "checkout \(id) has no 3-D Secure challenge waiting: answer a challenge only after /pay answered authentication_required"
        }
    }

    /// The violations, for `invalid_checkout`; empty otherwise.
    public var violations: [ValidationIssue] {
        if case .invalidParameters(let report) = reason { return report.errors }
        return []
    }
}
