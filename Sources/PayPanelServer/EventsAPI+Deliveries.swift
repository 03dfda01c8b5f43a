import Foundation
import PayPanel
import PayPanelHTTP

// `GET /v1/webhook_deliveries?payment_intent=pi_…&limit=N` (secret key): the deliveries of
// the events about one intent and its refunds, newest event first, each with its attempts
// (when, how long, the status code or the error; never the body, secret or signature).
// Bounded: at most `limit` events (1 to 100, default 20), each with one delivery per endpoint.
extension EventsAPI {
    static let maximumDeliveryEvents = 100
    /// Refunds of one intent looked at, at most (an intent refunded in 100 parts is already odd).
    static let maximumRefundObjects = 100

    func addDeliveryRoutes(to router: inout Router) {
        router.get("/v1/webhook_deliveries", credential: api.secretKey) { [desk, api] context in
            var intentID: String?
            var limit = 20
            for item in context.queryItems {
                switch item.name {
                case "payment_intent": intentID = item.value
                case "limit":
                    guard let value = Int(item.value), (1...Self.maximumDeliveryEvents).contains(value) else {
                        throw APIError.invalid("parameter_invalid", "limit must be an integer from 1 to \(Self.maximumDeliveryEvents) (events)", param: "limit")
                    }
                    limit = value
                default:
                    throw APIError.invalid("parameter_unknown", "unknown query parameter \(JSONWriter.quoted(SensitiveDigits.redacted(String(item.name.prefix(40))))): use payment_intent and limit", param: item.name)
                }
            }
            guard let intentID, !intentID.isEmpty else {
                throw APIError.invalid("parameter_missing", "give payment_intent=pi_… : the deliveries are listed per intent", param: "payment_intent")
            }
            guard let details = try await api.service.details(intentID) else { throw APIError.missing("payment_intent", intentID) }
            let objects = [intentID] + details.refunds.prefix(Self.maximumRefundObjects).map(\.id)
            let found = try await desk.deliveries(aboutObjects: objects, eventLimit: limit)
            let url = "/v1/webhook_deliveries?payment_intent=" + intentID
            return APIResponse.json(APIObjects.list(found.views.map(Self.json), hasMore: found.moreEvents, url: url))
        }
    }

    static func json(_ view: WebhookDeliveryView) -> JSONValue {
        let delivery = view.delivery
        let seconds = { (date: Date) in JSONValue.number(date.unixSeconds) }
        return .orderedObject([
            ("object", "webhook_delivery"), ("id", .number(delivery.id)), ("event", .string(view.event.id)),
            ("event_type", .string(view.event.type)), ("event_object", .string(view.event.objectID)),
            ("event_created", seconds(view.event.createdAt)), ("endpoint", .string(delivery.endpointID)),
            ("status", .string(delivery.status.rawValue)), ("attempt_count", .number(delivery.attempts)),
            ("next_attempt", delivery.nextAttemptAt.map(seconds) ?? .null),
            ("last_response_code", delivery.lastResponseCode.map { .number($0) } ?? .null),
            ("last_error", .optional(delivery.lastError)),
            ("attempts", .array(view.attempts.map { attempt in
                .orderedObject([
                    ("attempt", .number(attempt.attempt)), ("started", seconds(attempt.startedAt)),
                    ("duration_ms", .number(attempt.durationMilliseconds)),
                    ("response_code", attempt.responseCode.map { .number($0) } ?? .null),
                    ("outcome", .string(attempt.outcome.rawValue)), ("error", .optional(attempt.error)),
                ])
            })),
        ])
    }

    static var deliveryOpenAPIPaths: [(path: String, item: JSONValue)] {
        [("/v1/webhook_deliveries", OpenAPIDocument.item([
            "get": OpenAPIDocument.operation(
                "The webhook deliveries of the events about one payment intent and its refunds, newest event first, each with its attempts (time, duration, status code or error; never the body or the signature).",
                query: [
                    OpenAPIDocument.parameter("payment_intent", OpenAPIDocument.identifier("pi_…"), required: true),
                    OpenAPIDocument.parameter("limit", OpenAPIDocument.integer("events, 1 to 100 (default 20)", 1...Int64(Self.maximumDeliveryEvents))),
                ],
                responses: ["200": "list of {object: webhook_delivery, id, event, event_type, event_object, endpoint, status, attempt_count, next_attempt, last_response_code, last_error, attempts: [...]}", "400": "missing payment_intent, bad limit, unknown parameter", "404": "unknown intent"], returns: OpenAPISchemas.list(of: "WebhookDelivery")),
        ]))]
    }
}
