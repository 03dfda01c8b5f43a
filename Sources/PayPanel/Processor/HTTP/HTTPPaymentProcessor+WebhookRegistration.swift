import Foundation

/// What `serve --public-url` got from the processor: the endpoint it registered and the secret
/// that endpoint's webhooks are signed with. The secret stays in memory only.
package struct ProcessorWebhookRegistration: Sendable {
    package let endpointID: String
    /// `whsec_…`: never print it.
    package let secret: String
    /// Endpoints of earlier runs with the same URL that were deleted (their secrets were lost
    /// with those processes).
    package let replaced: Int
}

/// The registration could not be made.
package struct ProcessorWebhookRegistrationError: PayPanelError, Equatable {
    package let reason: String
    package var code: String { "processor_webhook_registration_failed" }
    package var message: String {
        "registering for the processor's webhooks failed: \(reason); check --processor, --processor-key and --public-url, or give --processor-webhook-secret instead"
    }
}

extension HTTPPaymentProcessor {
    /// Registers `url` (PayPanel's `…/v1/processor/webhooks`) for every event type at the
    /// processor (`POST /v1/webhook_endpoints`), after deleting the endpoints an earlier run
    /// registered with the same URL: their secrets died with that run, so their deliveries could
    /// only be refused (what they still held is covered by the reconciliation worker's lookup).
    package func registerWebhookEndpoint(url: String, timeout: Duration = .seconds(15)) async throws(ProcessorWebhookRegistrationError) -> ProcessorWebhookRegistration {
        let deadline = ContinuousClock.now + timeout
        var replaced = 0
        switch await call("GET", "/v1/webhook_endpoints", form: [], deadline: deadline) {
        case .object(let list):
            for endpoint in list["data"]?.arrayValue ?? [] where endpoint["url"]?.stringValue == url {
                guard let id = endpoint["id"]?.stringValue, id.hasPrefix("we_"), id.utf8.count <= 64,
                      id.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
                else { continue }
                if case .object = await call("DELETE", "/v1/webhook_endpoints/\(id)", form: [], deadline: deadline) { replaced += 1 }
            }
        case .stripeError(let status, let error):
            throw ProcessorWebhookRegistrationError(reason: Self.describe(status, error))
        case .failure(let outcome):
            throw ProcessorWebhookRegistrationError(reason: Self.describe(outcome))
        }
        switch await call("POST", "/v1/webhook_endpoints", form: [("url", url), ("enabled_events[]", "*")], deadline: deadline) {
        case .object(let endpoint):
            guard let id = endpoint["id"]?.stringValue, let secret = endpoint["secret"]?.stringValue, secret.hasPrefix("whsec_"), secret.utf8.count >= 16,
                  secret.utf8.count <= 256
            else { throw ProcessorWebhookRegistrationError(reason: "the processor's answer has no webhook endpoint id and whsec_ secret") }
            return ProcessorWebhookRegistration(endpointID: id, secret: secret, replaced: replaced)
        case .stripeError(let status, let error):
            throw ProcessorWebhookRegistrationError(reason: Self.describe(status, error))
        case .failure(let outcome):
            throw ProcessorWebhookRegistrationError(reason: Self.describe(outcome))
        }
    }

    private static func describe(_ status: Int, _ error: JSONValue) -> String {
        let message = error["message"]?.stringValue.map { ": " + String($0.prefix(300)) } ?? ""
        return "the processor answered HTTP \(status)\(message)"
    }

    private static func describe(_ outcome: ProcessorOutcome) -> String {
        switch outcome {
        case .notProcessed(let reason), .unknown(let reason): reason
        default: "no usable answer"
        }
    }
}
