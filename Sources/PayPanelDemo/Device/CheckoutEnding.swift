import Foundation
import PayPanel

/// Something the backend refused, shown as the error screen.
public struct CheckoutProblem: Sendable, Equatable {
    /// A stable snake_case code (`token_signing_time_stale`, `too_many_attempts`…).
    public let code: String
    /// One line saying what went wrong and what to do; never card data.
    public let message: String

    /// A problem; digit runs that could be a card number are redacted from `message`.
    public init(code: String, message: String) {
        self.code = code
        self.message = SensitiveDigits.redacted(message)
    }

    /// The problem of a thrown error: its code and message when it is a `PayPanelError`.
    public init(_ error: any Error) {
        if let error = error as? any PayPanelError {
            self.init(code: error.code, message: error.message)
        } else {
            self.init(code: "unexpected_error", message: String(describing: error))
        }
    }
}

/// How the checkout ended, and the exit status that says so.
public struct CheckoutEnding: Sendable, Equatable {
    /// Why the checkout ended.
    public enum Reason: String, Sendable, Equatable {
        /// A payment went through (captured, or authorized for manual capture).
        case paid
        /// The payer left before paying; an unpaid intent was canceled.
        case quit
        /// The flow ended on a failure: an unknown outcome, an error, an intent for the merchant.
        case failed
    }

    public let reason: Reason
    /// The checkout's intent as last read back, if one was created.
    public let intent: PaymentIntent?
    /// Set when canceling the unpaid intent on the way out did not work.
    public let cancelProblem: CheckoutProblem?
    /// How the last line says to capture an authorized intent.
    public var nextSteps: NextSteps = .commands(options: "")

    /// 0 for paid and quit, 1 for failed.
    public var exitCode: Int32 { reason == .failed ? 1 : 0 }
}

extension CheckoutEnding {
    /// `{"event": "exit", "reason": …, "exitStatus": …, "intentId": …, "status": …}`.
    public var json: JSONValue {
        .orderedObject([
            ("event", "exit"), ("reason", .string(reason.rawValue)), ("exitStatus", .number(Int(exitCode))),
            ("intentId", .optional(intent?.id)), ("status", .optional(intent?.status.rawValue)),
            ("cancelProblem", .optional(cancelProblem?.message)),
        ])
    }

    /// One line for the end of a session: what happened and where the intent stands.
    public var summary: String {
        let intentText = intent.map { "\($0.id) \($0.status.rawValue)" }
        switch reason {
        case .paid:
            guard let intent else { return "Paid." }
            return intent.status == .requiresCapture
                ? "Authorized \(intent.amount): intent \(intent.id) requires_capture (capture it with \(nextSteps.capture(intent.id)))."
                : "Paid \(intent.amount): intent \(intent.id) \(intent.status.rawValue)."
        case .quit:
            var text = intentText.map { "Left the checkout; intent \($0)." } ?? "Left the checkout; no payment was started."
            if let cancelProblem { text += " Canceling it failed: \(cancelProblem.message)" }
            return text
        case .failed:
            return "The checkout ended without a payment: intent \(intentText ?? "none")."
        }
    }
}
