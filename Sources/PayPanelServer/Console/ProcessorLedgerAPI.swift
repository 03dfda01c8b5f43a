import Foundation
import PayPanel
import PayPanelHTTP

/// `GET /v1/payment_intents/{id}/processor_ledger` (secret key): what the processor's own
/// ledger recorded for this intent's attempts (authorizations and their captures, voids and
/// refunds), for the console to show beside PayPanel's attempts and refunds. Network, last
/// four, amounts and outcomes only. A processor whose ledger cannot be read answers
/// `"available": false` with the reason, never an empty ledger that looks like agreement.
public struct ProcessorLedgerAPI: APIRouteProvider {
    let service: PaymentService
    let ledger: any ProcessorLedgerReading
    let credential: any RouteCredential

    /// The route over `api`'s service, under its secret key.
    package init(api: PaymentsAPI, ledger: any ProcessorLedgerReading) {
        self.service = api.service
        self.ledger = ledger
        self.credential = api.secretKey
    }

    public func addRoutes(to router: inout Router) {
        router.get("/v1/payment_intents/{id}/processor_ledger", credential: credential) { [service, ledger] context in
            guard context.queryItems.isEmpty else {
                throw APIError.invalid("parameter_unknown", "processor_ledger takes no query parameters")
            }
            let id = PaymentsAPI.id(context)
            guard let details = try await service.details(id) else { throw APIError.missing("payment_intent", id) }
            // An intent has at most PaymentPolicy.maximumAttempts attempts: the lookup is bounded.
            let view = await ledger.entries(ofAttempts: details.attempts.map(\.id))
            return APIResponse.json(Self.json(view, intentID: id))
        }
    }

    static func json(_ view: ProcessorLedgerView, intentID: String) -> JSONValue {
        var members: [(String, JSONValue)] = [("object", "processor_ledger"), ("payment_intent", .string(intentID))]
        switch view {
        case .rows(let rows):
            members += [("available", true), ("data", .array(rows.map(row)))]
        case .unavailable(let reason):
            members += [("available", false), ("reason", .string(SensitiveDigits.redacted(reason))), ("data", .array([]))]
        }
        return .orderedObject(members)
    }

    static func row(_ row: ProcessorLedgerRow) -> JSONValue {
        .orderedObject([
            ("object", "processor_ledger_entry"), ("id", .string(SensitiveDigits.redacted(row.processorID))),
            ("attempt", .string(row.reference)), ("operation", .string(row.operation)),
            ("refund", .optional(row.refundReference.map(SensitiveDigits.redacted))),
            ("amount", .number(row.amount)), ("currency", .string(row.currency)), ("status", .string(row.status)),
            ("decline_code", .optional(row.declineCode)), ("network", .optional(row.network)),
            ("last4", .optional(row.last4.map { String($0.suffix(4)) })),
            ("created", row.createdAt.map { .number($0.unixSeconds) } ?? .null),
        ])
    }

    public var openAPIPaths: [(path: String, item: JSONValue)] {
        [("/v1/payment_intents/{id}/processor_ledger", OpenAPIDocument.item([
            "get": OpenAPIDocument.operation(
                "The processor's own ledger rows for this intent's attempts (authorize, capture, void, refund): network, last four, amounts and outcomes, to compare with PayPanel's attempts and refunds. available: false with a reason when the processor's ledger cannot be read (a processor without an admin ledger endpoint).",
                path: true,
                responses: ["200": "{object: processor_ledger, payment_intent, available, reason?, data: [{id, attempt, operation, refund, amount, currency, status, decline_code, network, last4, created}]}", "404": "unknown intent"], returns: OpenAPISchemas.ref("ProcessorLedger")),
        ]))]
    }
}
