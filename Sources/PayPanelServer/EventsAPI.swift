import Foundation
import PayPanel
import PayPanelHTTP

/// `/v1/events` (what happened, newest first) and `/v1/webhook_endpoints` (where PayPanel
/// posts it), under the secret key. The endpoint's secret is in the create response only.
public struct EventsAPI: APIRouteProvider {
    let desk: WebhookDesk
    let api: PaymentsAPI

    public init(desk: WebhookDesk, api: PaymentsAPI) {
        self.desk = desk
        self.api = api
    }

    public func addRoutes(to router: inout Router) {
        router.get("/v1/events", credential: api.secretKey) { [desk] context in
            let query = try EventListQuery(context)
            // One more than asked tells whether there is a next page.
            let rows = try await desk.events(type: query.type, page: query.page, limit: query.limit + 1)
            let page: [StoredEvent]
            if case .newerThan = query.page { page = Array(rows.suffix(query.limit)) } else { page = Array(rows.prefix(query.limit)) }
            return APIResponse.json(APIObjects.list(page.map(Self.json), hasMore: rows.count > query.limit, url: "/v1/events"))
        }
        router.get("/v1/events/{id}", credential: api.secretKey) { [desk] context in
            guard let event = try await desk.event(PaymentsAPI.id(context)) else { throw APIError.missing("event", PaymentsAPI.id(context)) }
            return APIResponse.json(Self.json(event))
        }
        router.post("/v1/webhook_endpoints", credential: api.secretKey) { [desk, api] context in
            let body = try RequestBody(context, allowed: ["url", "events"])
            guard let url = try body.string("url", required: true) else { throw RequestBody.missing("url") }
            let types = try Self.eventTypes(body)
            return try await api.idempotent(context) {
                let created = try await desk.create(url: url, eventTypes: types)
                return APIResponse.json(created.record.apiJSON(secret: created.secret))
            }
        }
        router.get("/v1/webhook_endpoints", credential: api.secretKey) { [desk] _ in
            let all = try await desk.list()
            return APIResponse.json(APIObjects.list(all.map { $0.apiJSON() }, hasMore: false, url: "/v1/webhook_endpoints"))
        }
        router.get("/v1/webhook_endpoints/{id}", credential: api.secretKey) { [desk] context in
            APIResponse.json(try await desk.endpoint(PaymentsAPI.id(context)).apiJSON())
        }
        router.delete("/v1/webhook_endpoints/{id}", credential: api.secretKey) { [desk] context in
            let id = PaymentsAPI.id(context)
            try await desk.remove(id)
            return APIResponse.json(.orderedObject([("object", "webhook_endpoint"), ("id", .string(id)), ("deleted", true)]))
        }
        addDeliveryRoutes(to: &router)
    }

    /// The stored body, parsed back: exactly what was delivered.
    package static func json(_ event: StoredEvent) -> JSONValue {
        (try? JSONParser().parse(event.body)) ?? .orderedObject([("object", "event"), ("id", .string(event.id))])
    }

    static func eventTypes(_ body: RequestBody) throws(APIError) -> [String] {
        guard let value = body.value("events") else { return ["*"] }
        guard case .array(let items) = value, !items.isEmpty, items.count <= 50 else {
            throw APIError.invalid("parameter_invalid", "events must be a list of 1 to 50 event types, or [\"*\"]", param: "events")
        }
        var types: [String] = []
        for item in items {
            guard let type = item.stringValue else { throw APIError.invalid("parameter_invalid", "events must hold strings", param: "events") }
            guard !types.contains(type) else {
                throw APIError.invalid("parameter_invalid", "events lists \(JSONWriter.quoted(String(type.prefix(60)))) twice: give each event type once", param: "events")
            }
            types.append(type)
        }
        return types
    }

    public var openAPIPaths: [(path: String, item: JSONValue)] { WebhooksOpenAPI.paths + Self.deliveryOpenAPIPaths }
}

/// `GET /v1/events?limit&starting_after&ending_before&type`.
struct EventListQuery {
    var limit = 10
    var page = EventPage.first
    var type: String?

    init(_ context: RequestContext) throws(APIError) {
        var paging = ListPaging()
        for item in context.queryItems where try !paging.take(item) {
            switch item.name {
            case "type":
                guard EventTypes.all.contains(item.value) else {
                    throw APIError.invalid("parameter_invalid", "type must be one of \(EventTypes.all.joined(separator: ", "))", param: "type")
                }
                type = item.value
            default:
                throw APIError.invalid("parameter_unknown", "unknown query parameter \(JSONWriter.quoted(SensitiveDigits.redacted(item.name)))", param: item.name)
            }
        }
        paging = try paging.finished()
        limit = paging.limit
        if let after = paging.startingAfter {
            page = .olderThan(after)
        } else if let before = paging.endingBefore {
            page = .newerThan(before)
        }
    }
}
