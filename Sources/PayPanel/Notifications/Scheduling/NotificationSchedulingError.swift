import Foundation

/// Why a scheduled-notification operation was refused. Nothing was changed.
package enum NotificationSchedulingError: PayPanelError, Equatable {
    case invalidRequest(String)
    case notFound(Int64)
    case notDelivered(id: Int64, deliverAt: Date)
    case alreadyAnswered(id: Int64, action: String, at: Date)
    case noActions(id: Int64, category: String?)
    case unknownAction(action: String, category: NotificationCategory)

    package var code: String {
        switch self {
        case .invalidRequest: "invalid_notification"
        case .notFound: "notification_not_found"
        case .notDelivered: "notification_not_delivered"
        case .alreadyAnswered: "notification_already_answered"
        case .noActions: "notification_has_no_actions"
        case .unknownAction: "unknown_notification_action"
        }
    }

    package var message: String {
        switch self {
        case .invalidRequest(let reason):
            "cannot schedule the notification: \(reason)"
        case .notFound(let id):
            "there is no notification \(id): see 'paypanel notify list'"
        case .notDelivered(let id, let deliverAt):
            "notification \(id) has not been delivered yet (due at \(Timestamp.format(deliverAt))): run 'paypanel notify deliver' once it is due, then answer it"
        case .alreadyAnswered(let id, let action, let at):
            "notification \(id) was already answered with \(action) at \(Timestamp.format(at)); a notification is answered once"
        case .noActions(let id, let category):
            "notification \(id) has \(category.map { "category \($0), which PayPanel does not register," } ?? "no category, so it has") no actions"
        case .unknownAction(let action, let category):
            "\(JSONWriter.quoted(action)) is not an action of category \(category.identifier): use \(category.actionList)"
        }
    }
}
