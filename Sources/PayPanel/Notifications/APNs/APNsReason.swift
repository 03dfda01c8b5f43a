import Foundation

/// What PayPanel does with each answer of APNs (Apple's "Handling notification responses from
/// APNs": the status and the `reason` of the JSON body). Reasons are recorded as APNs sent
/// them, never guessed; an unknown reason falls back on what its status means.
package enum APNsAction: String, Sendable, Equatable {
    /// 200: delivered to APNs.
    case sent
    /// The device token will never work again (400 BadDeviceToken / DeviceTokenNotForTopic,
    /// 410 Unregistered / ExpiredToken): the device is marked dead and never pushed again.
    case deviceDead = "device_dead"
    /// The provider token was refused (403): make a new JWT once and resend; if that is refused
    /// too, fail loudly (the key, key id or team id is wrong).
    case refreshProviderToken = "refresh_provider_token"
    /// APNs is busy or broken (429, 500, 503): try again later, with backoff.
    case retry
    /// The request itself is wrong (other 400s, 404, 405, 413): resending the same bytes cannot
    /// succeed, so it is never retried. A bug or a configuration error to fix.
    case reject
}

/// One answer of APNs, read.
package struct APNsResponse: Sendable, Equatable {
    package let status: Int
    /// The `apns-id` header APNs answered with (the one PayPanel sent).
    package let apnsID: String?
    /// The `reason` of the JSON error body.
    package let reason: String?
    /// 410's `timestamp` (milliseconds since the epoch): since when the token is invalid.
    package let invalidSince: Date?

    package init(status: Int, apnsID: String?, reason: String?, invalidSince: Date?) {
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.invalidSince = invalidSince
    }

    /// Reads a response: its status, its `apns-id` and its body (`{"reason": …, "timestamp": …}`).
    /// A body that is not that JSON leaves the reason nil; the status still decides.
    package init(status: Int, apnsID: String?, body: [UInt8]) {
        var reason: String?
        var invalidSince: Date?
        if !body.isEmpty, body.count <= 4096, case .object(let object)? = try? JSONParser(maximumDepth: 4).parse(body) {
            if case .string(let text)? = object["reason"], text.utf8.count <= 64,
                text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
            {
                reason = text
            }
            if let milliseconds = object["timestamp"]?.int64Value, milliseconds > 0 {
                invalidSince = Timestamp.date(epochMilliseconds: milliseconds)
            }
        }
        self.init(status: status, apnsID: apnsID, reason: reason, invalidSince: invalidSince)
    }

    /// What to do about this answer.
    package var action: APNsAction { APNsReasonTable.action(status: status, reason: reason) }
}

/// Apple's table of reasons, each with PayPanel's action.
package enum APNsReasonTable {
    /// Every reason Apple documents, by status, with the action taken.
    package static let reasons: [(status: Int, reason: String, action: APNsAction)] = [
        (400, "BadCollapseId", .reject), (400, "BadDeviceToken", .deviceDead), (400, "BadExpirationDate", .reject),
        (400, "BadMessageId", .reject), (400, "BadPriority", .reject), (400, "BadTopic", .reject),
        (400, "DeviceTokenNotForTopic", .deviceDead), (400, "DuplicateHeaders", .reject), (400, "IdleTimeout", .retry),
        (400, "InvalidPushType", .reject), (400, "MissingDeviceToken", .reject), (400, "MissingTopic", .reject),
        (400, "PayloadEmpty", .reject), (400, "TopicDisallowed", .reject),
        (403, "BadCertificate", .refreshProviderToken), (403, "BadCertificateEnvironment", .refreshProviderToken),
        (403, "ExpiredProviderToken", .refreshProviderToken), (403, "Forbidden", .refreshProviderToken),
        (403, "InvalidProviderToken", .refreshProviderToken), (403, "MissingProviderToken", .refreshProviderToken),
        (403, "UnrelatedKeyIdInToken", .refreshProviderToken), (403, "BadEnvironmentKeyIdInToken", .refreshProviderToken),
        (404, "BadPath", .reject), (405, "MethodNotAllowed", .reject),
        (410, "ExpiredToken", .deviceDead), (410, "Unregistered", .deviceDead),
        (413, "PayloadTooLarge", .reject),
        (429, "TooManyProviderTokenUpdates", .retry), (429, "TooManyRequests", .retry),
        (500, "InternalServerError", .retry),
        (503, "ServiceUnavailable", .retry), (503, "Shutdown", .retry),
    ]

    /// The action for `status` and `reason`: the table's, else the status's meaning.
    package static func action(status: Int, reason: String?) -> APNsAction {
        if status == 200 { return .sent }
        if let reason, let row = reasons.first(where: { $0.status == status && $0.reason == reason }) { return row.action }
        switch status {
        case 403: return .refreshProviderToken
        case 410: return .deviceDead
        case 429, 500, 502, 503, 504: return .retry
        default: return .reject
        }
    }
}
