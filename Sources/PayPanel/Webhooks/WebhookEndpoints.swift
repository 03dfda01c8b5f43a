import Foundation

/// Webhook endpoints above any `WebhookStore`: creation (URL and event types checked, a new
/// secret sealed), listing, removal, secret rotation and replays. The secret in clear exists
/// only in the value `create` and `rotateSecret` return, and in the relay's memory while it signs.
package final class WebhookEndpoints {
    package let store: any WebhookStore
    let box: WebhookSecretBox
    let random: any RandomByteSource

    /// How long the previous secret keeps signing after a rotation, so receivers can switch.
    package static let rotationOverlap: TimeInterval = 24 * 3600

    package init(store: any WebhookStore, box: WebhookSecretBox, random: any RandomByteSource = SystemRandomBytes()) {
        self.store = store
        self.box = box
        self.random = random
    }

    /// Creates an enabled endpoint for `url` receiving `eventTypes` (`["*"]` for all).
    package func create(url: String, eventTypes: [String], at now: Date) throws -> CreatedWebhookEndpoint {
        try Self.checkURL(url)
        let types = eventTypes.isEmpty ? ["*"] : eventTypes
        if let unknown = types.first(where: { !EventTypes.isSubscribable($0) }) {
            throw WebhookStoreError(
                "unknown event type \(JSONWriter.quoted(SensitiveDigits.redacted(unknown))): use * or one of \(EventTypes.all.joined(separator: ", "))",
                code: "invalid_event_type", field: "events")
        }
        guard types.count <= 50 else { throw WebhookStoreError("at most 50 event types per endpoint", code: "invalid_event_type", field: "events") }
        let id = "we_" + Self.randomID(random, length: 24)
        let secret = WebhookSecret.generate(random: random)
        let record = WebhookEndpointRecord(
            id: id, url: url, eventTypes: Array(Set(types)).sorted(), status: .enabled, disabledReason: nil,
            sealedSecret: try box.seal(secret, endpointID: id, version: 1), secretVersion: 1, previousSealedSecret: nil,
            previousSecretVersion: nil, previousExpiresAt: nil, createdAt: now)
        try store.insertEndpoint(record)
        return CreatedWebhookEndpoint(record: record, secret: secret)
    }

    /// Refuses what can never be a webhook URL (`WebhookURLRule`) or would store a card number.
    static func checkURL(_ url: String) throws {
        if let problem = WebhookURLRule.problem(url) { throw WebhookStoreError(problem, code: "invalid_url", field: "url") }
        try SensitiveDigits.check(url, field: "url")
    }

    package func endpoint(_ id: String) throws -> WebhookEndpointRecord {
        guard let endpoint = try store.endpoint(id) else { throw Self.notFound(id) }
        return endpoint
    }

    package func list() throws -> [WebhookEndpointRecord] { try store.endpoints() }

    package func remove(_ id: String, at now: Date) throws {
        guard try store.deleteEndpoint(id, at: now) else { throw Self.notFound(id) }
    }

    /// A new secret for `id`; the previous one keeps signing (both signatures are sent) for
    /// `rotationOverlap`. A disabled endpoint is enabled again: rotating is what an owner does
    /// when they come back to it.
    package func rotateSecret(_ id: String, at now: Date) throws -> CreatedWebhookEndpoint {
        var endpoint = try endpoint(id)
        let secret = WebhookSecret.generate(random: random)
        endpoint.previousSealedSecret = endpoint.sealedSecret
        endpoint.previousSecretVersion = endpoint.secretVersion
        endpoint.previousExpiresAt = now.addingTimeInterval(Self.rotationOverlap)
        endpoint.secretVersion += 1
        endpoint.sealedSecret = try box.seal(secret, endpointID: id, version: endpoint.secretVersion)
        endpoint.status = .enabled
        endpoint.disabledReason = nil
        guard try store.updateEndpoint(endpoint) else { throw Self.notFound(id) }
        return CreatedWebhookEndpoint(record: endpoint, secret: secret)
    }

    /// Sends `eventID` again, now, to `endpointID`, or to every enabled endpoint that wants its
    /// type. Returns the endpoints it was queued for.
    package func replay(eventID: String, endpointID: String?, at now: Date) throws -> [String] {
        guard let event = try store.event(eventID) else {
            throw WebhookStoreError("no event \(JSONWriter.quoted(SensitiveDigits.redacted(eventID))): list them with 'paypanel events list'", code: "event_not_found")
        }
        let targets: [String]
        if let endpointID {
            targets = [try endpoint(endpointID).id]
        } else {
            targets = try list().filter { $0.status == .enabled && $0.wants(event.type) }.map(\.id)
        }
        for target in targets { _ = try store.replay(eventID: eventID, endpointID: target, at: now) }
        return targets
    }

    /// The secrets that sign at `now`: the current one, and the previous one during a rotation.
    func signingSecrets(of endpoint: WebhookEndpointRecord, at now: Date) throws -> [WebhookSecret] {
        var secrets = [try box.open(endpoint.sealedSecret, endpointID: endpoint.id, version: endpoint.secretVersion)]
        if let sealed = endpoint.previousSealedSecret, let version = endpoint.previousSecretVersion,
           let until = endpoint.previousExpiresAt, now < until {
            secrets.append(try box.open(sealed, endpointID: endpoint.id, version: version))
        }
        return secrets
    }

    static func notFound(_ id: String) -> WebhookStoreError {
        WebhookStoreError(
            "no webhook endpoint \(JSONWriter.quoted(SensitiveDigits.redacted(id))): list them with 'GET /v1/webhook_endpoints'",
            code: "webhook_endpoint_not_found")
    }

    /// Base-62, letters and digits mixed, from random bytes.
    static func randomID(_ random: any RandomByteSource, length: Int) -> String {
        Base62.random(length: length, from: random)
    }
}

/// An endpoint just created or rotated, with its secret: the only time the secret is shown.
package struct CreatedWebhookEndpoint: Sendable {
    package let record: WebhookEndpointRecord
    package let secret: WebhookSecret
}

extension WebhookEndpointRecord {
    /// `{"object":"webhook_endpoint","id","url","events","status",…}`; `secret` only on creation.
    package func apiJSON(secret: WebhookSecret? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("object", "webhook_endpoint"), ("id", .string(id)), ("url", .string(url)),
            ("events", .array(eventTypes.map(JSONValue.string))), ("status", .string(status.rawValue)),
            ("disabled_reason", .optional(disabledReason)), ("secret_version", .number(secretVersion)),
            ("created", .number(createdAt.unixSeconds)),
        ]
        if let secret { members.append(("secret", .string(secret.revealed))) }
        return .orderedObject(members)
    }
}
