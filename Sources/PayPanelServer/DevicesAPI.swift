import Foundation
import PayPanel
import PayPanelHTTP

/// `/v1/devices`: the APNs registrations checkouts are pushed to. The merchant's backend (with
/// its secret key) registers the token the app got from APNs; PayPanel marks it dead when APNs
/// says so and never pushes to it again.
public struct DevicesAPI: APIRouteProvider {
    let outbox: PushOutbox
    let api: PaymentsAPI
    /// The topic of a registration that names none (`--apns-topic`).
    let defaultTopic: String?

    package init(outbox: PushOutbox, api: PaymentsAPI, defaultTopic: String?) {
        self.outbox = outbox
        self.api = api
        self.defaultTopic = defaultTopic
    }

    public func addRoutes(to router: inout Router) {
        router.post("/v1/devices", credential: api.secretKey) { [outbox, api, defaultTopic] context in
            let body = try RequestBody(context, allowed: ["token", "topic", "environment"])
            guard let token = try body.string("token", required: true) else { throw RequestBody.missing("token") }
            guard let topic = try body.string("topic") ?? defaultTopic else {
                throw APIError.invalid("parameter_missing", "topic is required (the app's bundle id): this server has no default topic", param: "topic")
            }
            let environmentText = try body.string("environment") ?? APNsEnvironment.production.rawValue
            guard let environment = APNsEnvironment(rawValue: environmentText) else {
                throw APIError.invalid("parameter_invalid", "environment must be \"development\" or \"production\"", param: "environment")
            }
            return try await api.idempotent(context) {
                APIResponse.json(Self.json(try await outbox.register(token: token, topic: topic, environment: environment)))
            }
        }
        router.get("/v1/devices/{id}", credential: api.secretKey) { [outbox] context in
            let id = PaymentsAPI.id(context)
            guard let device = try await outbox.device(id) else { throw APIError.missing("device", id) }
            return APIResponse.json(Self.json(device))
        }
    }

    public var openAPIPaths: [(path: String, item: JSONValue)] { DevicesOpenAPI.paths(defaultTopic: defaultTopic) }

    /// `{"object": "device", "id", "token", "topic", "environment", "status", "dead_reason"?, "dead_at"?, "created"}`.
    static func json(_ device: Device) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("object", "device"), ("id", .string(device.id)), ("token", .string(device.token)), ("topic", .string(device.topic)),
            ("environment", .string(device.environment.rawValue)), ("status", .string(device.isDead ? "dead" : "active")),
        ]
        if let dead = device.dead {
            members += [("dead_reason", .string(dead.reason)), ("dead_at", .number(dead.at.unixSeconds))]
        }
        members.append(("created", .number(device.createdAt.unixSeconds)))
        return .orderedObject(members)
    }

    /// A checkout's `push`: `{"status", "apns_id", "reason"?, "attempts"}`.
    static func pushJSON(_ delivery: PushDelivery) -> JSONValue {
        var members: [(String, JSONValue)] = [("status", .string(delivery.status.rawValue)), ("apns_id", .string(delivery.apnsID))]
        if let reason = delivery.reason { members.append(("reason", .string(reason))) }
        members += [("device", .string(delivery.deviceID)), ("attempts", .number(delivery.attempts))]
        return .orderedObject(members)
    }
}

/// The OpenAPI path items of `/v1/devices`.
enum DevicesOpenAPI {
    typealias Doc = OpenAPIDocument

    /// `topic` is required when the server has no default topic (`serve --apns-topic`).
    static func paths(defaultTopic: String?) -> [(path: String, item: JSONValue)] {
        [
            ("/v1/devices", Doc.item([
                "post": Doc.operation(
                    "Register an APNs device token; the same token, topic and environment again returns the same device. A token APNs reported dead is refused.",
                    body: Doc.schema([
                        "token": Doc.string("the device token in hex, as the app's registration gave it", length: 64...200, pattern: "^([0-9A-Fa-f]{2}){32,100}$"),
                        "topic": Doc.string("the app's bundle id (default: the server's --apns-topic)", length: 1...255, pattern: "^[A-Za-z0-9-][A-Za-z0-9.-]*$"),
                        "environment": Doc.enumeration(["development", "production"]),
                    ], required: defaultTopic == nil ? ["token", "topic"] : ["token"]),
                    responses: ["200": "device", "400": "invalid token or topic, or a dead token"], returns: OpenAPISchemas.ref("Device")),
            ])),
            ("/v1/devices/{id}", Doc.item([
                "get": Doc.operation("Retrieve a device, with its status (active or dead, and APNs' reason).", path: true,
                                     responses: ["200": "device", "404": "unknown"], returns: OpenAPISchemas.ref("Device")),
            ])),
        ]
    }
}
