import Foundation
import MockProcessor
import PayPanel

/// `/v1/webhook_endpoints`, Stripe's shape: each account (each `sk_test_…` key) registers where
/// its events go. The secret is shown once, in the creation's answer, as at Stripe. With the
/// mock's own delivery log and resend (`/_mock/webhook_deliveries`, `/_mock/events/{id}/resend`).
///
/// A job of its own beside the payments: the endpoints live in the ledger file (`MockProcessor`)
/// and no account object is read, only the account's clock, which the caller passes in (`now`).
/// `ProcessorService` holds one; its routes call it without entering the service.
struct MockWebhookEndpoints: Sendable {
    let mock: MockProcessor
    /// Seals each endpoint's secret in the ledger file.
    let box: WebhookSecretBox
    /// The webhook sender's finished passes, shown with the deliveries.
    let senderPasses: WorkerPasses

    /// Stripe allows 16 endpoints per account; so does the mock.
    static let maximumEndpointsPerAccount = 16

    /// POST /v1/webhook_endpoints — `url`, `enabled_events[]` (types, or `*`), `description`;
    /// created at `now`, the account's clock.
    func create(_ tag: String, _ parameters: Parameters, now: Date) async -> Reply {
        do {
            guard let url = try parameters.string("url") else { throw StripeError.missing("url") }
            if let problem = WebhookURLRule.problem(url) { throw StripeError.invalidRequest("Invalid URL: \(problem).", param: "url") }
            let events = try Self.enabledEvents(parameters)
            let description = try parameters.string("description")
            if let description, description.count > 5000 {
                throw StripeError.invalidRequest("description is longer than 5000 characters.", param: "description")
            }
            let existing = try await mock.webhookEndpoints(account: tag)
            guard existing.count < Self.maximumEndpointsPerAccount else {
                throw StripeError.invalidRequest(
                    "This account has \(Self.maximumEndpointsPerAccount) webhook endpoints, the most allowed: delete one (DELETE /v1/webhook_endpoints/{id}) first.")
            }
            let id = ProcessorService.objectID(prefix: "we", tag: tag, idempotencyKey: nil)
            let secret = WebhookSecret.generate()
            let row = MockWebhookEndpointRow(
                id: id, account: tag, url: url, enabledEvents: events, sealedSecret: try box.seal(secret, endpointID: id, version: 1),
                description: description, createdAt: now)
            try await mock.addWebhookEndpoint(row)
            return .ok(Self.endpointJSON(row, secret: secret.revealed))
        } catch let error as StripeError {
            return .error(error)
        } catch {
            return .error(.apiError("The webhook endpoint cannot be stored: \((error as? any PayPanelError)?.message ?? "unexpected failure")."))
        }
    }

    /// GET /v1/webhook_endpoints — this account's endpoints, newest first (no secrets).
    func list(_ tag: String) async -> Reply {
        do {
            let rows = try await mock.webhookEndpoints(account: tag)
            return .ok(ObjectJSON.list(rows.map { Self.endpointJSON($0, secret: nil) }, hasMore: false, url: "/v1/webhook_endpoints"))
        } catch {
            return .error(.apiError("The webhook endpoints cannot be read."))
        }
    }

    /// GET /v1/webhook_endpoints/{id}
    func retrieve(_ tag: String, id: String) async -> Reply {
        guard let row = try? await mock.webhookEndpoints(account: tag).first(where: { $0.id == id }) else {
            return .error(.resourceMissing("webhook_endpoint", id))
        }
        return .ok(Self.endpointJSON(row, secret: nil))
    }

    /// DELETE /v1/webhook_endpoints/{id} — its undelivered events are dropped with it.
    func delete(_ tag: String, id: String) async -> Reply {
        do {
            guard try await mock.deleteWebhookEndpoint(id: id, account: tag) else { return .error(.resourceMissing("webhook_endpoint", id)) }
            return .ok(.orderedObject([("id", .string(id)), ("object", "webhook_endpoint"), ("deleted", true)]))
        } catch {
            return .error(.apiError("The webhook endpoint cannot be deleted."))
        }
    }

    /// GET /_mock/webhook_deliveries — every delivery of this account's events (a test's view
    /// of what was sent, retried or given up).
    func deliveries(_ tag: String) async -> Reply {
        do {
            let rows = try await mock.webhookDeliveries(account: tag)
            let data: [JSONValue] = rows.map { row in
                .orderedObject([
                    ("object", "mock_webhook_delivery"), ("event", .string(row.eventID)), ("webhook_endpoint", .string(row.endpointID)),
                    ("type", .string(row.type)), ("status", .string(row.status)), ("attempts", .number(row.attempts)),
                    ("next_attempt_at", ObjectJSON.unix(row.nextAttemptAt)), ("last_status", row.lastStatus.map { .number($0) } ?? .null),
                    ("last_error", .optional(row.lastError)),
                ])
            }
            // With the sender's finished passes: what a test waits for before it asserts that
            // nothing more was sent (a count, not a sleep).
            return .ok(.orderedObject([
                ("object", "list"), ("data", .array(data)), ("has_more", .bool(false)), ("url", "/_mock/webhook_deliveries"),
                ("sender_passes", .number(senderPasses.finished)),
            ]))
        } catch {
            return .error(.apiError("The webhook deliveries cannot be read."))
        }
    }

    /// POST /_mock/events/{id}/resend — delivers the event again to every endpoint it went to
    /// (a processor's "resend" button; how a test shows a receiver deduplicates), due at `now`.
    func resend(_ tag: String, id: String, now: Date) async -> Reply {
        guard let count = try? await mock.resendWebhookEvent(id: id, account: tag, now: now), count > 0 else {
            return .error(.resourceMissing("event", id))
        }
        return .ok(.orderedObject([("id", .string(id)), ("object", "event"), ("resent_to", .number(count))]))
    }

    /// `enabled_events[]=a&enabled_events[]=b`, `enabled_events[0]=a`, or one `enabled_events=*`.
    static func enabledEvents(_ parameters: Parameters) throws(StripeError) -> [String] {
        let given: [FormValue]
        switch parameters.value(["enabled_events"]) {
        case nil: throw StripeError.missing("enabled_events")
        case .string(let text)?: given = [.string(text)]
        case .list(let items)?: given = items
        case .object(let members)?: given = members.map(\.value)
        }
        var types: [String] = []
        for item in given {
            guard case .string(let type) = item, (1...100).contains(type.utf8.count),
                  type == "*" || type.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || (0x61...0x7A).contains($0) })
            else {
                throw StripeError.invalidRequest("enabled_events must be event types such as payment_intent.succeeded, or *.", param: "enabled_events")
            }
            if !types.contains(type) { types.append(type) }
        }
        guard !types.isEmpty, types.count <= 100 else {
            throw StripeError.invalidRequest("enabled_events must list 1 to 100 event types (or *).", param: "enabled_events")
        }
        return types
    }

    static func endpointJSON(_ row: MockWebhookEndpointRow, secret: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(row.id)), ("object", "webhook_endpoint"), ("api_version", .null), ("application", .null),
            ("created", ObjectJSON.unix(row.createdAt)), ("description", .optional(row.description)),
            ("enabled_events", .array(row.enabledEvents.map(JSONValue.string))), ("livemode", false), ("metadata", .orderedObject([])),
        ]
        if let secret { members.append(("secret", .string(secret))) }
        members += [("status", "enabled"), ("url", .string(row.url))]
        return .orderedObject(members)
    }
}
