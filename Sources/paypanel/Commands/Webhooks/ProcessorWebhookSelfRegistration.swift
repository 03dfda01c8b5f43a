import Foundation
import PayPanel

/// `serve --processor URL --public-url URL`: serve registers its own `/v1/processor/webhooks`
/// with the processor at start and keeps the secret it gets back in memory only (never in the
/// database, never printed). Why this design rather than a secret file: the processor is the
/// one that makes secrets; asking it at every start means nothing secret is ever stored on
/// PayPanel's side, and a restart simply registers again (replacing the previous run's endpoint).
enum ProcessorWebhookSelfRegistration {
    static func register(publicURL: String, arguments: ParsedArguments, environment: [String: String]) async throws -> String {
        guard let processor = try arguments.httpProcessor(environment: environment) else {
            throw UsageError("'--public-url' registers for the processor's webhooks, so it needs '--processor <url>' (or $PAYPANEL_PROCESSOR_URL)")
        }
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        guard let components = URLComponents(string: base), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              components.host?.isEmpty == false, components.query == nil, base.utf8.count <= 1000
        else {
            throw UsageError("'--public-url' must be this server's absolute http(s) URL as the processor reaches it, such as http://127.0.0.1:8080 (or auto), not '\(publicURL)'")
        }
        let registration = try await processor.registerWebhookEndpoint(url: base + "/v1/processor/webhooks")
        let line = JSONWriter.string(.orderedObject([
            ("processor_webhooks", "registered"), ("endpoint", .string(registration.endpointID)), ("url", .string(base + "/v1/processor/webhooks")),
            ("replaced", .number(registration.replaced)),
        ]))
        ServeCommand.writeError(line)
        return registration.secret
    }
}
