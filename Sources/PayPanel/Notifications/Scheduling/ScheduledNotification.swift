import Foundation

/// A notification to schedule: when, what it says, and what it carries.
package struct NotificationRequest: Sendable, Equatable {
    package var deliverAt: Date
    package var category: String?
    package var content: NotificationContent
    /// Deliver with the body replaced by a placeholder until the user picks show-me.
    package var bodyHidden: Bool
    package var threadID: String?
    package var orderReference: String?
    /// App data carried with the notification (`userInfo`).
    package var userInfo: JSONObject
    /// The full APNs payload, for a payment-action push (a panel or a panel update).
    package var payload: JSONObject?

    package init(
        deliverAt: Date, category: String? = nil, content: NotificationContent, bodyHidden: Bool = false,
        threadID: String? = nil, orderReference: String? = nil, userInfo: JSONObject = JSONObject(),
        payload: JSONObject? = nil
    ) {
        self.deliverAt = deliverAt
        self.category = category
        self.content = content
        self.bodyHidden = bodyHidden
        self.threadID = threadID
        self.orderReference = orderReference
        self.userInfo = userInfo
        self.payload = payload
    }

    /// A request that delivers `payload` as sent: its alert, category, thread-id, order
    /// reference and the whole document (so a panel update reaches an open checkout intact).
    package init(payload: PushPayload, deliverAt: Date, bodyHidden: Bool = false, userInfo: JSONObject = JSONObject()) {
        self.init(
            deliverAt: deliverAt, category: payload.aps.category, content: NotificationContent(aps: payload.aps),
            bodyHidden: bodyHidden, threadID: payload.aps.threadID, orderReference: payload.orderReference,
            userInfo: userInfo, payload: payload.document)
    }
}

/// A scheduled notification as stored, with where it is in its life.
package struct ScheduledNotification: Sendable, Equatable, JSONRepresentable {
    package enum State: String, Sendable {
        case pending, delivered, responded
    }

    package let id: Int64
    package let request: NotificationRequest
    package let createdAt: Date
    package let deliveredAt: Date?
    /// 1, 2, 3… in the order notifications were delivered; what a poller resumes after.
    package let deliverySequence: Int64?
    package let respondedAt: Date?
    package let responseAction: String?
    /// The hidden notification this one reveals (show-me).
    package let revealsID: Int64?

    package init(
        id: Int64, request: NotificationRequest, createdAt: Date, deliveredAt: Date?, deliverySequence: Int64?,
        respondedAt: Date?, responseAction: String?, revealsID: Int64?
    ) {
        self.id = id
        self.request = request
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.deliverySequence = deliverySequence
        self.respondedAt = respondedAt
        self.responseAction = responseAction
        self.revealsID = revealsID
    }

    package var state: State {
        if respondedAt != nil { return .responded }
        return deliveredAt != nil ? .delivered : .pending
    }

    /// What shows before show-me in place of a hidden body.
    package static let hiddenBodyPlaceholder = "Hidden: choose Show me to see it."

    /// The content as the device shows it: a hidden body is replaced by the placeholder.
    package var displayedContent: NotificationContent {
        var content = request.content
        if request.bodyHidden { content.body = ScheduledNotification.hiddenBodyPlaceholder }
        return content
    }

    /// The stored payment-action payload, read back (nil when there is none or it no longer reads).
    package var pushPayload: PushPayload? {
        guard let document = request.payload else { return nil }
        return PushPayloadReader.read(json: .object(document)).deliverablePayload
    }

    /// The notification without its hidden body: the form printed by `deliver` and `list`.
    package var json: JSONValue {
        let content = displayedContent
        var object = JSONObject()
        object["id"] = .number(id)
        object["state"] = .string(state.rawValue)
        object["deliverAt"] = .string(Timestamp.format(request.deliverAt))
        object["category"] = .optional(request.category)
        object["title"] = .optional(content.title)
        object["subtitle"] = .optional(content.subtitle)
        object["body"] = .optional(content.body)
        object["bodyHidden"] = .bool(request.bodyHidden)
        object["threadId"] = .optional(request.threadID)
        object["orderReference"] = .optional(request.orderReference)
        object["userInfo"] = .object(request.userInfo)
        object["hasPayload"] = .bool(request.payload != nil)
        object["revealsId"] = .optional(revealsID)
        object["deliveredAt"] = .optional(deliveredAt.map(Timestamp.format))
        object["deliverySequence"] = .optional(deliverySequence)
        object["respondedAt"] = .optional(respondedAt.map(Timestamp.format))
        object["responseAction"] = .optional(responseAction)
        return .object(object)
    }
}

/// What answering a notification did.
package struct NotificationResponse: Sendable, Equatable, JSONRepresentable {
    package let notification: ScheduledNotification
    package let action: NotificationAction
    /// The re-delivery show-me scheduled, when the body was hidden.
    package let reveal: ScheduledNotification?
    /// One sentence on what happens next.
    package let outcome: String

    package var json: JSONValue {
        var object = JSONObject()
        object["id"] = .number(notification.id)
        object["action"] = .string(action.identifier)
        object["category"] = .optional(notification.request.category)
        object["respondedAt"] = .optional(notification.respondedAt.map(Timestamp.format))
        object["outcome"] = .string(outcome)
        object["reveal"] = reveal.map { ["id": .number($0.id), "deliverAt": .string(Timestamp.format($0.request.deliverAt))] } ?? .null
        return .object(object)
    }
}
