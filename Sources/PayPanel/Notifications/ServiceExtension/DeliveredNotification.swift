/// What the device shows after the service extension: the content, the attachment it kept (or
/// nil), and why it fell back to the best attempt when it did.
package struct DeliveredNotification: Sendable, Equatable, JSONRepresentable {
    package var content: NotificationContent
    package var attachment: NotificationAttachment?
    /// Set when the best attempt was delivered instead of what the payload asked for.
    package var fallback: MutationFallback?
    /// False when the push had no `mutable-content: 1`, so the extension never ran.
    package var extensionRan: Bool

    package init(content: NotificationContent, attachment: NotificationAttachment?, fallback: MutationFallback?, extensionRan: Bool) {
        self.content = content
        self.attachment = attachment
        self.fallback = fallback
        self.extensionRan = extensionRan
    }

    /// `{"title","subtitle","body","attachment":{…}|null,"fallbackReason","fallbackCode","extensionRan"}`.
    package var json: JSONValue {
        var object = JSONObject()
        object["title"] = .optional(content.title)
        object["subtitle"] = .optional(content.subtitle)
        object["body"] = .optional(content.body)
        object["attachment"] = attachment?.json ?? .null
        object["fallbackReason"] = .optional(fallback?.reason)
        object["fallbackCode"] = .optional(fallback?.code)
        object["extensionRan"] = .bool(extensionRan)
        return .object(object)
    }
}

/// A kept attachment, as `UNNotificationAttachment` describes one.
package struct NotificationAttachment: Sendable, Equatable, JSONRepresentable {
    /// The key it came from: `image`, `video` or `gif`.
    package var identifier: String
    /// The file on disk: the local file itself, or the saved download.
    package var file: String
    package var type: AttachmentType
    package var byteCount: Int
    /// Where it was fetched from.
    package var source: String

    package init(identifier: String, file: String, type: AttachmentType, byteCount: Int, source: String) {
        self.identifier = identifier
        self.file = file
        self.type = type
        self.byteCount = byteCount
        self.source = source
    }

    package var json: JSONValue {
        [
            "identifier": .string(identifier), "file": .string(file), "type": .string(type.mimeType),
            "byteCount": .number(byteCount), "source": .string(source),
        ]
    }
}

/// Why the best attempt was delivered: a stable code and a sentence for people.
package struct MutationFallback: Error, Sendable, Equatable {
    /// Codes of the extension's own decisions; fetch failures use `MediaFetchError.Kind` codes.
    package enum Code: String, Sendable {
        case payloadMalformed = "payload_malformed"
        case videoNeedsWifi = "video_needs_wifi"
        case unsupportedType = "unsupported_type"
        case wrongKindForKey = "wrong_kind_for_key"
        case typeMismatch = "type_mismatch"
        case tooLarge = "attachment_too_large"
        case deadlineExceeded = "deadline_exceeded"
    }

    package let code: String
    package let reason: String

    package init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    init(_ code: Code, _ reason: String) {
        self.init(code: code.rawValue, reason: reason)
    }
}
