import Foundation
import PayPanel
import PayPanelHTTP

// /v1/refunds: create and read.
extension PaymentsAPI {
    func addRefundRoutes(to router: inout RouteGroup) {
        router.post("/v1/refunds") { context in
            let body = try RequestBody(context, allowed: ["payment_intent", "amount", "reason"])
            let intentID = try body.string("payment_intent", required: true) ?? ""
            let amount = try body.integer("amount")
            if let amount, amount <= 0 { throw APIError.invalid("parameter_invalid", "amount must be a positive integer (minor units)", param: "amount") }
            var reason: RefundReason?
            if let text = try body.string("reason") {
                guard let value = RefundReason(rawValue: text) else {
                    throw APIError.invalid("parameter_invalid", "reason must be one of \(RefundReason.allCases.map(\.rawValue).joined(separator: ", "))", param: "reason")
                }
                reason = value
            }
            return try await idempotent(context, resume: { refundID in
                try Self.refundResponse(try await service.resume(refundID: refundID, intentID: intentID))
            }) { recoveryPoint in
                try Self.refundResponse(try await service.refund(intentID, amount: amount, reason: reason, recoveryPoint: recoveryPoint))
            }
        }
        router.get("/v1/refunds/{id}") { context in
            guard let refund = try await service.refund(id: Self.id(context)) else {
                throw APIError.missing("refund", Self.id(context))
            }
            return APIResponse.json(APIObjects.refund(refund))
        }
    }

    /// The refund the outcome is about, as the API's object.
    static func refundResponse(_ outcome: PaymentOutcome) throws -> HTTPResponse {
        guard let refund = outcome.refund else { throw APIError.from(CancellationError()) }
        return APIResponse.json(APIObjects.refund(refund))
    }
}
