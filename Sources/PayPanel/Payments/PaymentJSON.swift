import Foundation

extension JSONValue {
    /// A JSON object with `members` in this order.
    public static func orderedObject(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members.map { (key: $0.0, value: $0.1) }))
    }
}

/// Shorthand for `JSONValue.orderedObject` in this module.
func jsonObject(_ members: [(String, JSONValue)]) -> JSONValue {
    .orderedObject(members)
}

// The JSON forms of intents, attempts, refunds and events (`--json`, outbox payloads, stored
// idempotent results): camelCase keys, snake_case statuses, amounts in minor units.

extension PaymentIntent: JSONRepresentable {
    /// `{"id", "status", "amount", "currency", "captureMethod", "amountCapturable",
    /// "amountCaptured", "amountRefunded", "lastError", "version", "createdAt", …}`.
    public var json: JSONValue {
        jsonObject([
            ("id", .string(id)),
            ("status", .string(status.rawValue)),
            ("amount", .number(amount.minorUnits)),
            ("currency", .string(currency.code)),
            ("captureMethod", .string(captureMethod.rawValue)),
            ("amountCapturable", .number(amountCapturable)),
            ("amountCaptured", .number(amountCaptured)),
            ("amountRefunded", .number(amountRefunded)),
            ("lastError", lastError?.json ?? .null),
            ("version", .number(version)),
            ("createdAt", .string(Timestamp.format(createdAt))),
            ("orderReference", .optional(orderReference)),
            ("amountAuthorized", .number(amountAuthorized)),
            ("amountRefundPending", .number(amountRefundPending)),
            ("captureBefore", .optional(captureBefore.map(Timestamp.format))),
            ("cancellationReason", .optional(cancellationReason?.rawValue)),
            ("attemptCount", .number(attemptCount)),
            ("currentAttemptId", .optional(currentAttemptID)),
            ("processing", inFlight?.json ?? .null),
            ("updatedAt", .string(Timestamp.format(updatedAt))),
            ("metadata", metadata.json),
        ])
    }
}

extension InFlightOperation: JSONRepresentable {
    /// The call the intent waits on: `{"operation", "attemptId", "amount", "outcomeUnknownSince", …}`.
    public var json: JSONValue {
        jsonObject([
            ("operation", .string(kind.rawValue)),
            ("attemptId", .string(attemptID)),
            ("amount", .number(amount)),
            ("voidPurpose", .optional(voidPurpose?.rawValue)),
            ("startedAt", .string(Timestamp.format(startedAt))),
            ("outcomeUnknownSince", .optional(outcomeUnknownSince.map(Timestamp.format))),
            ("reconciliationLookups", .number(reconciliationLookups)),
            ("processorRetries", .number(processorRetries)),
        ])
    }
}

extension PaymentFailure: JSONRepresentable {
    /// `{"code", "declineCode", "message", "payerMessage", "attemptId"}`.
    public var json: JSONValue {
        jsonObject([
            ("code", .string(code.rawValue)),
            ("declineCode", .optional(declineCode?.rawValue)),
            ("message", .string(message)),
            ("payerMessage", .string(payerMessage)),
            ("attemptId", .optional(attemptID)),
        ])
    }
}

extension Attempt: JSONRepresentable {
    /// The attempt with its card summary (network, last 4, expiry, ECI presence).
    public var json: JSONValue {
        var sheetJSON: JSONValue = .null
        if let sheet {
            sheetJSON = jsonObject([
                ("answer", .optional(sheet.answer?.rawValue)),
                ("deadline", .string(Timestamp.format(sheet.deadline))),
            ])
        }
        return jsonObject([
            ("id", .string(id)),
            ("intentId", .string(intentID)),
            ("sequence", .number(sequence)),
            ("status", .string(status.rawValue)),
            ("source", .string(source.rawValue)),
            ("network", .optional(card.network?.rawValue)),
            ("last4", .string(card.last4)),
            ("expiryMonth", .optional(card.expiryMonth.map(Int64.init))),
            ("expiryYear", .optional(card.expiryYear.map(Int64.init))),
            ("eciPresent", .bool(card.eciPresent)),
            ("amount", .number(amount.minorUnits)),
            ("currency", .string(amount.currency.code)),
            ("approvedAmount", .optional(approvedAmount?.minorUnits)),
            ("approvedCurrency", .optional(approvedAmount?.currency.code)),
            ("processorId", .optional(processorID)),
            ("failure", failure?.json ?? .null),
            ("sheet", sheetJSON),
            ("createdAt", .string(Timestamp.format(createdAt))),
            ("updatedAt", .string(Timestamp.format(updatedAt))),
        ])
    }
}

extension Refund: JSONRepresentable {
    public var json: JSONValue {
        jsonObject([
            ("id", .string(id)),
            ("intentId", .string(intentID)),
            ("attemptId", .string(attemptID)),
            ("amount", .number(amount.minorUnits)),
            ("currency", .string(amount.currency.code)),
            ("status", .string(status.rawValue)),
            ("reason", .optional(reason?.rawValue)),
            ("processorAccepted", .bool(processorAccepted)),
            ("processorId", .optional(processorID)),
            ("failureCode", .optional(failureCode)),
            ("createdAt", .string(Timestamp.format(createdAt))),
            ("updatedAt", .string(Timestamp.format(updatedAt))),
        ])
    }
}

extension PaymentEvent {
    /// What the history keeps of the event: its details, never card data (attempts carry only
    /// the card summary; processor texts are redacted).
    package var data: JSONValue {
        let object = jsonObject
        switch self {
        case .attemptOpened(let opening):
            return object([
                ("attemptId", .string(opening.attemptID)), ("source", .string(opening.source.rawValue)),
                ("card", .string(opening.card.description)), ("amount", .number(opening.amount.minorUnits)),
                ("currency", .string(opening.amount.currency.code)), ("answersPaymentSheet", .bool(opening.answersPaymentSheet)),
            ])
        case .processorAnswered(let call, let outcome), .reconciliationFound(let call, let outcome):
            return object([("call", call.json), ("outcome", outcome.json)])
        case .challengePassed(let attemptID), .challengeFailed(let attemptID), .challengeAbandoned(let attemptID),
            .sheetAnswerDue(let attemptID):
            return object([("attemptId", .string(attemptID))])
        case .captureRequested(let amount):
            return object([("amount", .optional(amount))])
        case .cancelRequested(let reason):
            return object([("reason", .string(reason.rawValue))])
        case .refundRequested(let refundID, let amount, let reason):
            return object([("refundId", .string(refundID)), ("amount", .number(amount)), ("reason", .optional(reason?.rawValue))])
        case .reconciliationNotFound(let call), .reconciliationExhausted(let call):
            return object([("call", call.json)])
        case .reconciliationUnavailable(let call, let reason):
            return object([("call", call.json), ("reason", .string(SensitiveDigits.redacted(reason)))])
        case .timerFired(let kind, let reference):
            return object([("timer", .string(kind.rawValue)), ("reference", .string(reference))])
        case .operatorResolved(let resolution, let record):
            var members: [(String, JSONValue)] = [("resolution", .string(resolution.name))]
            if case .refund(let refundID, _) = resolution { members.append(("refundId", .string(refundID))) }
            members += [
                ("note", .string(record.note)), ("operator", .string(record.actor)), ("forced", .bool(record.forced)),
                ("processor", record.processor?.json ?? .null),
            ]
            return object(members)
        }
    }
}

extension ProcessorCall: JSONRepresentable {
    /// `{"operation": "authorize", "reference": "att_…"}`.
    public var json: JSONValue {
        .object(JSONObject([(key: "operation", value: .string(operationName)), (key: "reference", value: .string(reference))]))
    }
}

extension ProcessorOutcome: JSONRepresentable {
    /// The outcome with its details; processor texts are redacted.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [(key: "result", value: .string(eventSuffix))]
        switch self {
        case .approved(let approval):
            members += [
                (key: "amount", value: .number(approval.amount.minorUnits)),
                (key: "currency", value: .string(approval.amount.currency.code)),
                (key: "processorId", value: .string(SensitiveDigits.redacted(approval.processorID))),
                (key: "expiresAt", value: .optional(approval.expiresAt.map(Timestamp.format))),
            ]
        case .declined(let code):
            members.append((key: "declineCode", value: .string(SensitiveDigits.redacted(code.rawValue))))
        case .notProcessed(let reason), .unknown(let reason):
            members.append((key: "reason", value: .string(SensitiveDigits.redacted(reason))))
        case .challengeRequired, .pending:
            break
        }
        return .object(JSONObject(members))
    }
}
