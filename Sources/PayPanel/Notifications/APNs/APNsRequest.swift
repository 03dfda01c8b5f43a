import Foundation

/// Where pushes go: Apple's development (sandbox) or production host, or any URL (tests, a proxy).
package enum APNsEnvironment: String, Sendable, CaseIterable {
    /// Apps signed for development (Xcode builds): api.sandbox.push.apple.com.
    case development
    /// TestFlight and App Store builds: api.push.apple.com.
    case production

    /// The base URL of the provider API.
    package var baseURL: String {
        switch self {
        case .development: "https://api.sandbox.push.apple.com"
        case .production: "https://api.push.apple.com"
        }
    }
}

/// One alert push, ready to send: everything of `POST /3/device/<token>` but the provider token.
package struct APNsNotification: Sendable, Equatable {
    /// The device token, lower-case hex.
    package let deviceToken: String
    /// The app's bundle id (`apns-topic`).
    package let topic: String
    /// A UUID chosen and kept by PayPanel (`apns-id`): a resend after a crash carries the same one.
    package let apnsID: String
    /// `apns-collapse-id`: a later push with the same id replaces this one on the device.
    package let collapseID: String?
    /// `apns-expiration`: APNs stops trying to deliver after this; nil sends 0 (deliver once, now or never).
    package let expiration: Date?
    /// The payload, validated by `PushPayloadReader` (≤ 4096 bytes).
    package let payload: [UInt8]

    /// Checks what APNs would refuse anyway, with a message that says which field.
    package init(deviceToken: String, topic: String, apnsID: String, collapseID: String?, expiration: Date?, payload: [UInt8])
        throws(APNsRequestError)
    {
        guard let token = DeviceToken(deviceToken) else {
            throw APNsRequestError("the device token must be hex (64 or more digits, as the device's registration gave it); got \(deviceToken.utf8.count) characters")
        }
        guard APNsTopic.isValid(topic) else {
            throw APNsRequestError("the topic must be the app's bundle id (letters, digits, '.', '-'), at most 255 characters")
        }
        guard UUID(uuidString: apnsID) != nil else { throw APNsRequestError("the apns-id must be a UUID") }
        if let collapseID {
            guard !collapseID.isEmpty, collapseID.utf8.count <= 64 else { throw APNsRequestError("the collapse id must be 1 to 64 bytes") }
        }
        guard !payload.isEmpty, payload.count <= PushPayload.maximumByteCount else {
            throw APNsRequestError("the payload is \(payload.count) bytes; APNs takes 1 to \(PushPayload.maximumByteCount)")
        }
        self.deviceToken = token.hex
        self.topic = topic
        self.apnsID = apnsID.lowercased()
        self.collapseID = collapseID
        self.expiration = expiration
        self.payload = payload
    }

    /// `/3/device/<token>`.
    package var path: String { "/3/device/\(deviceToken)" }

    /// The request headers, without `authorization`.
    package var headers: [(name: String, value: String)] {
        var headers: [(String, String)] = [
            ("apns-topic", topic), ("apns-push-type", "alert"), ("apns-priority", "10"),
            ("apns-expiration", String(expiration.map { max(0, $0.unixSeconds) } ?? 0)),
            ("apns-id", apnsID),
        ]
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        headers.append(("content-type", "application/json"))
        return headers
    }
}

/// A device token as APNs gives it to the app: bytes, sent as hex. Today 32 bytes; Apple says
/// not to assume a length, so 32 to 100 bytes are accepted.
package struct DeviceToken: Sendable, Equatable {
    /// Lower-case hex.
    package let hex: String

    package init?(_ text: String) {
        let lower = text.lowercased()
        guard lower.utf8.count % 2 == 0, (64...200).contains(lower.utf8.count),
            lower.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        hex = lower
    }
}

/// The bundle id rules for `apns-topic`.
package enum APNsTopic {
    package static func isValid(_ topic: String) -> Bool {
        !topic.isEmpty && topic.utf8.count <= 255 && !topic.hasPrefix(".")
            && topic.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            }
    }
}

/// A push PayPanel refuses to build.
package struct APNsRequestError: PayPanelError, Equatable {
    package let message: String
    package var code: String { "apns_request_invalid" }

    package init(_ message: String) {
        self.message = message
    }
}

/// Moves one request to APNs and back. The real one is `URLSessionAPNsTransport` (HTTP/2 over
/// TLS); unit tests inject a fake that answers from a script.
package protocol APNsTransport: Sendable {
    /// POSTs `body` to `url` with `headers`; the answer's status, `apns-id` header and body.
    /// Throws when no answer came (connection refused, TLS failure, timeout): the push may or
    /// may not have reached APNs, so the caller resends with the same `apns-id`.
    func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws(APNsTransportError) -> APNsHTTPAnswer
}

/// What came back.
package struct APNsHTTPAnswer: Sendable, Equatable {
    package let status: Int
    package let apnsID: String?
    package let body: [UInt8]

    package init(status: Int, apnsID: String?, body: [UInt8]) {
        self.status = status
        self.apnsID = apnsID
        self.body = body
    }
}

/// No answer from APNs.
package struct APNsTransportError: PayPanelError, Equatable {
    package let message: String
    package var code: String { "apns_unreachable" }

    package init(_ message: String) {
        self.message = message
    }
}
