import Foundation
import PayPanel

/// The `Stripe-Version` a request asks for. Stripe refuses a version it never released, answers
/// in the version asked for (echoed in the response's `Stripe-Version` header), and uses the
/// account's default when none is sent; the mock does the same with the versions it knows.
///
/// What the mock models per version is the default that changed between them: a PaymentIntent
/// created without `capture_method` is `automatic_async` from 2024-04-10 on, `automatic` before.
/// Versions before 2020-08-27 are refused: their object shapes differ in ways the mock does not
/// model, and a loud 400 is better than an answer in another version's shape.
struct StripeAPIVersion: Sendable, Equatable {
    let name: String

    /// The versions the mock answers in, oldest first. Dated versions: Stripe's upgrade log;
    /// named ones: the versions stripe-python's CHANGELOG.md pins (github stripe/stripe-python,
    /// through 2026-06-24.dahlia) and stripe-python 16.1.0's `_api_version.py` (2026-10-28.endive).
    static let known: [String] = [
        "2020-08-27", "2022-08-01", "2022-11-15", "2023-08-16", "2023-10-16", "2024-04-10", "2024-06-20",
        "2024-09-30.acacia", "2024-10-28.acacia", "2024-11-20.acacia", "2024-12-18.acacia", "2025-01-27.acacia", "2025-02-24.acacia",
        "2025-03-31.basil", "2025-04-30.basil", "2025-05-28.basil", "2025-06-30.basil", "2025-07-30.basil", "2025-08-27.basil",
        "2025-09-30.clover", "2025-10-29.clover", "2025-11-17.clover", "2025-12-15.clover", "2026-01-28.clover", "2026-02-25.clover",
        "2026-03-25.dahlia", "2026-04-22.dahlia", "2026-05-27.dahlia", "2026-06-24.dahlia",
        "2026-10-28.endive",
    ]

    /// What an account created today defaults to: the newest version the mock knows.
    static let accountDefault = StripeAPIVersion(name: known.last!)

    /// The version `header` names, or the account's default when there is none.
    init(header: String?) throws(StripeError) {
        guard let header else {
            self = Self.accountDefault
            return
        }
        let requested = header.trimmingCharacters(in: .whitespaces)
        guard Self.known.contains(requested) else {
            let shown = JSONWriter.quoted(SensitiveDigits.redacted(requested), limit: 40)
            // Stripe's words, and like Stripe no code: the SDKs raise InvalidRequestError.
            throw StripeError(
                status: .badRequest, type: "invalid_request_error",
                message: "Invalid Stripe API version: \(shown). This mock knows \(Self.known.first!) to \(Self.known.last!) (docs/mock-processor.md lists them); send one of those, or no Stripe-Version header for \(Self.accountDefault.name).")
        }
        name = requested
    }

    private init(name: String) {
        self.name = name
    }

    /// `capture_method` when a PaymentIntent is created without one.
    var defaultCaptureMethod: String {
        name >= "2024-04-10" ? "automatic_async" : "automatic"
    }
}
