import PayPanel

/// The OpenAPI path items of `/v1/events` and `/v1/webhook_endpoints`.
enum WebhooksOpenAPI {
    typealias Doc = OpenAPIDocument

    static var paths: [(path: String, item: JSONValue)] {
        [
            ("/v1/events", Doc.item([
                "get": Doc.operation(
                    "List events, newest first.",
                    query: Doc.listQuery(cursor: "an event id") + [Doc.parameter("type", Doc.enumeration(EventTypes.all))],
                    responses: ["200": "list of events {object: event, id, type, created, data: {object}}"], returns: OpenAPISchemas.list(of: "Event")),
            ])),
            ("/v1/events/{id}", Doc.item([
                "get": Doc.operation("Retrieve an event: the body exactly as delivered.", path: true, responses: ["200": "event", "404": "unknown"], returns: OpenAPISchemas.ref("Event")),
            ])),
            ("/v1/webhook_endpoints", Doc.item([
                "post": Doc.operation(
                    "Create a webhook endpoint; the only response with its secret (whsec_…).",
                    body: Doc.schema([
                        "url": Doc.string(
                            "an absolute https:// URL without user, password or #fragment (webhooks to http and to private addresses are only sent with serve --allow-private-webhooks)",
                            length: 8...WebhookURLRule.maximumBytes, pattern: WebhookURLRule.pattern),
                        "events": Doc.list(Doc.enumeration(["*"] + EventTypes.all), count: 1...50, unique: true),
                    ], required: ["url"]),
                    responses: ["200": "webhook_endpoint with secret", "400": "bad URL or event type"], returns: OpenAPISchemas.ref("WebhookEndpoint")),
                "get": Doc.operation("List webhook endpoints (never their secrets).", responses: ["200": "list of webhook_endpoint"], returns: OpenAPISchemas.list(of: "WebhookEndpoint")),
            ])),
            ("/v1/webhook_endpoints/{id}", Doc.item([
                "get": Doc.operation("Retrieve a webhook endpoint.", path: true, responses: ["200": "webhook_endpoint", "404": "unknown"], returns: OpenAPISchemas.ref("WebhookEndpoint")),
                "delete": Doc.operation("Delete a webhook endpoint: nothing more is sent to it.", path: true, responses: ["200": "{deleted: true}", "404": "unknown"], returns: OpenAPISchemas.ref("Deleted")),
            ])),
        ]
    }
}
