import Foundation
import PayPanel
import PayPanelHTTP

// `POST /v1/payment_intents/{id}/resolve`: the operator's way out of requires_merchant_action,
// over `PaymentService.resolve` (as `paypanel payments resolve`). The processor's ledger is
// asked first; a resolution it contradicts is a 409 unless `force` is true, and the note, the
// operator and what the processor said are kept in the intent's history either way.
extension PaymentsAPI {
    func addResolveRoute(to router: inout RouteGroup) {
        router.post("/v1/payment_intents/{id}/resolve") { context in
            let body = try RequestBody(context, allowed: ["resolution", "note", "operator", "force"])
            let request = try Self.resolution(body, caller: context.principal(as: APIKeyRecord.self))
            let id = Self.id(context)
            return try await idempotent(context, resume: { intentID in
                APIResponse.json(Self.resolvedJSON(try await service.resumeResolution(intentID)))
            }) { recoveryPoint in
                let resolved = try await service.resolve(
                    id, as: request.resolution, note: request.note, actor: request.actor, force: request.force,
                    recoveryPoint: recoveryPoint)
                return APIResponse.json(Self.resolvedJSON(resolved))
            }
        }
    }

    /// What the body asks for. Without `operator`, the API key's id is recorded as who resolved it.
    static func resolution(_ body: RequestBody, caller: APIKeyRecord?) throws(APIError) -> (resolution: IntentResolution, note: String, actor: String, force: Bool) {
        let names = IntentResolution.allCases.map(\.rawValue)
        let text = try body.string("resolution", required: true) ?? ""
        guard let resolution = IntentResolution(rawValue: text) else {
            throw APIError.invalid("parameter_invalid", "resolution must be one of \(names.joined(separator: ", "))", param: "resolution")
        }
        let note = try body.string("note", required: true) ?? ""
        let actor = try body.string("operator") ?? "api key \(caller?.id ?? "-")"
        do {
            // Checked here, before any work: a note that cannot be kept stores no idempotency key.
            _ = try OperatorRecord(note: note, actor: actor)
        } catch {
            throw APIError.invalid(error.code, error.message, param: error.field ?? "note")
        }
        return (resolution, note, actor, try body.bool("force") ?? false)
    }

    /// The payment_intent (with the attempt it resolved) and `resolution: {as, note, operator,
    /// forced, processor_says}`.
    static func resolvedJSON(_ resolved: ResolutionOutcome) -> JSONValue {
        let intent = APIObjects.intent(resolved.outcome.intent, attempts: resolved.outcome.attempt.map { [$0] })
        guard case .object(var object) = intent else { return intent }
        object["resolution"] = .orderedObject([
            ("as", .string(resolved.resolution.rawValue)), ("note", .string(resolved.record.note)),
            ("operator", .string(resolved.record.actor)), ("forced", .bool(resolved.record.forced)),
            ("processor_says", .string(resolved.processorSays)),
        ])
        return .object(object)
    }
}
