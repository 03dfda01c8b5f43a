import Foundation
import PayPanel

/// The checkout routes' pushes: a checkout created with `"device": "dev_…"` is pushed to that
/// device (collapse id = the checkout id, expiry = the checkout's), an update is pushed to the
/// same device with the same collapse id, so the device replaces the panel. The checkout's
/// JSON shows the latest push as `"push": {"status", "apns_id", "reason"?}`.
struct CheckoutPushes: Sendable {
    static let deviceKey = "device"
    let outbox: PushOutbox?

    /// Refuses (400/404) a device that is unknown or dead, or any device when pushes are off.
    func checkDevice(_ id: String) async throws {
        guard let outbox else {
            throw APIError.invalid("devices_not_available", "this server keeps no devices", param: Self.deviceKey)
        }
        guard let device = try await outbox.device(id) else {
            throw APIError(status: .notFound, kind: .invalidRequest, code: "resource_missing",
                           message: "no such device: \(JSONWriter.quoted(SensitiveDigits.redacted(String(id.prefix(64))))); register it with POST /v1/devices",
                           param: Self.deviceKey)
        }
        if let dead = device.dead {
            throw APIError.invalid("device_dead", "the device \(device.id) is dead (APNs: \(dead.reason)); the app must register its new token",
                                   param: Self.deviceKey)
        }
    }

    /// Queues and tries the checkout's payment-action push.
    func push(_ checkout: Checkout, to deviceID: String) async throws -> PushDelivery? {
        guard let outbox else { return nil }
        let payload = try checkout.pushPayload()
        let bytes = Array(JSONWriter.string(.object(payload.document), style: .compact).utf8)
        return try await outbox.push(bytes, to: deviceID, checkoutID: checkout.id, collapseID: checkout.id, expiresAt: checkout.expiresAt)
    }

    /// An update goes to the device of the checkout's first push; none: not pushed.
    func pushUpdate(_ checkout: Checkout) async throws -> PushDelivery? {
        guard let outbox, let previous = try await outbox.latestDelivery(checkoutID: checkout.id) else { return nil }
        guard let device = try await outbox.device(previous.deviceID), !device.isDead else { return previous }
        return try await push(checkout, to: device.id)
    }

    func latest(_ checkoutID: String) async throws -> PushDelivery? {
        try await outbox?.latestDelivery(checkoutID: checkoutID)
    }

    /// `json` (a checkout object) with `push`, when there was one.
    static func adding(_ delivery: PushDelivery?, to json: JSONValue) -> JSONValue {
        guard let delivery, case .object(var object) = json else { return json }
        object["push"] = DevicesAPI.pushJSON(delivery)
        return .object(object)
    }
}
