import Foundation
import PayPanel

/// The API's own JSON shapes (snake_case, `"object"` and `"id"` on every object, times as
/// epoch seconds), separate from the CLI's camelCase JSON so either can change alone.
/// No card number, cryptogram or token is in any of them: attempts carry the card summary.
enum APIObjects {
    /// `{"object":"payment_intent", …}`; `attempts`, `refunds` and `events` only when given.
    static func intent(
        _ intent: PaymentIntent, attempts: [Attempt]? = nil, refunds: [Refund]? = nil, events: [PaymentEventRecord]? = nil
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("object", "payment_intent"), ("id", .string(intent.id)), ("status", .string(intent.status.rawValue)),
            ("amount", .number(intent.amount.minorUnits)), ("currency", .string(intent.currency.code)),
            ("capture_method", .string(intent.captureMethod.rawValue)),
            ("amount_capturable", .number(intent.amountCapturable)), ("amount_captured", .number(intent.amountCaptured)),
            ("amount_refunded", .number(intent.amountRefunded)), ("amount_refundable", .number(intent.amountRefundable)),
            ("order_reference", .optional(intent.orderReference)), ("metadata", intent.metadata.json),
            ("capture_before", intent.captureBefore.map(seconds) ?? .null),
            ("cancellation_reason", .optional(intent.cancellationReason?.rawValue)),
            ("last_error", intent.lastError.map(failure) ?? .null),
            ("attempt_count", .number(intent.attemptCount)),
            ("created", seconds(intent.createdAt)), ("updated", seconds(intent.updatedAt)),
        ]
        if let attempts { members.append(("attempts", .array(attempts.map(attempt)))) }
        if let refunds { members.append(("refunds", .array(refunds.map(refund)))) }
        if let events { members.append(("events", .array(events.map(event)))) }
        return .orderedObject(members)
    }

    /// `{"object":"payment_attempt", …}` with the card summary (network, last 4, expiry).
    static func attempt(_ attempt: Attempt) -> JSONValue {
        .orderedObject([
            ("object", "payment_attempt"), ("id", .string(attempt.id)), ("status", .string(attempt.status.rawValue)),
            ("source", .string(attempt.source.rawValue)), ("amount", .number(attempt.amount.minorUnits)),
            ("currency", .string(attempt.amount.currency.code)),
            ("card", .orderedObject([
                ("network", .optional(attempt.card.network?.rawValue)), ("last4", .string(attempt.card.last4)),
                ("exp_month", attempt.card.expiryMonth.map { .number($0) } ?? .null),
                ("exp_year", attempt.card.expiryYear.map { .number($0) } ?? .null),
            ])),
            ("failure", attempt.failure.map(failure) ?? .null),
            ("created", seconds(attempt.createdAt)),
        ])
    }

    /// `{"object":"refund", …}`.
    static func refund(_ refund: Refund) -> JSONValue {
        .orderedObject([
            ("object", "refund"), ("id", .string(refund.id)), ("payment_intent", .string(refund.intentID)),
            ("amount", .number(refund.amount.minorUnits)), ("currency", .string(refund.amount.currency.code)),
            ("status", .string(refund.status.rawValue)), ("reason", .optional(refund.reason?.rawValue)),
            ("failure_code", .optional(refund.failureCode)), ("created", seconds(refund.createdAt)),
        ])
    }

    /// `{"object":"event", …}`; `data` is the stored event details, parsed back.
    static func event(_ event: PaymentEventRecord) -> JSONValue {
        let data = (try? JSONParser().parse(event.data)) ?? .null
        return .orderedObject([
            ("object", "event"), ("id", .string("v\(event.version)")), ("version", .number(event.version)),
            ("type", .string(event.type)), ("from_status", .optional(event.fromStatus?.rawValue)),
            ("to_status", .optional(event.toStatus?.rawValue)), ("data", data), ("created", seconds(event.occurredAt)),
        ])
    }

    /// `last_error` / `failure`: `{"type","code","decline_code"?,"message"}`, the payer-safe message.
    static func failure(_ failure: PaymentFailure) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string(failure.code == .cardDeclined ? "card_error" : "api_error")), ("code", .string(failure.code.rawValue)),
        ]
        if let decline = failure.declineCode { members.append(("decline_code", .string(decline.rawValue))) }
        members.append(("message", .string(SensitiveDigits.redacted(failure.message))))
        return .orderedObject(members)
    }

    /// `{"object":"list","data":[…],"has_more":…,"url":…}`.
    static func list(_ data: [JSONValue], hasMore: Bool, url: String) -> JSONValue {
        .orderedObject([("object", "list"), ("data", .array(data)), ("has_more", .bool(hasMore)), ("url", .string(url))])
    }

    static func seconds(_ date: Date) -> JSONValue {
        .number(date.unixSeconds)
    }
}
