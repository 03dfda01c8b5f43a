import Foundation
import PayPanel

/// Something that happened besides the screen change, for the transcript and `--json`.
package enum CheckoutNote: Sendable {
    case intentCreated(PaymentIntent)
    case intentCanceled(PaymentIntent)
    /// The device sealed an Apple Pay token (the backend then verified and decrypted it).
    case tokenSealed(SealedTokenNote)
    /// An attempt failed; the payer may try another card.
    case declined(PaymentReport)
    case panelUpdated(PanelUpdate)
}

extension CheckoutNote {
    /// The note as an event: `intent_created`, `intent_canceled`, `token_sealed`, `declined`,
    /// `panel_updated`.
    package var json: JSONValue {
        switch self {
        case .intentCreated(let intent):
            return .orderedObject([
                ("event", "intent_created"), ("intentId", .string(intent.id)), ("amount", .string(intent.amount.decimalString)),
                ("currency", .string(intent.currency.code)), ("captureMethod", .string(intent.captureMethod.rawValue)),
                ("orderReference", .optional(intent.orderReference)),
            ])
        case .intentCanceled(let intent):
            return .orderedObject([
                ("event", "intent_canceled"), ("intentId", .string(intent.id)), ("status", .string(intent.status.rawValue)),
                ("reason", .optional(intent.cancellationReason?.rawValue)),
            ])
        case .tokenSealed(let token):
            return .orderedObject([
                ("event", "token_sealed"), ("version", .string(token.version)), ("bytes", .number(token.byteCount)),
                ("transactionId", .string(token.transactionID)),
            ])
        case .declined(let report):
            let notice = report.failureNotice
            return .orderedObject([
                ("event", "declined"), ("channel", .string(report.channel.rawValue)), ("intentId", .string(report.intent.id)),
                ("status", .string(report.intent.status.rawValue)), ("card", .string(notice.cardLabel)),
                ("attemptId", .optional(notice.attemptID)), ("code", .string(notice.failureCode)),
                ("declineCode", .optional(notice.declineCode)), ("payerMessage", .string(notice.payerMessage)),
            ])
        case .panelUpdated(let update):
            return .orderedObject([
                ("event", "panel_updated"), ("summary", .string(update.summary)), ("selected", .string(update.selection.decimalString)),
                ("selectionKept", .bool(update.selectionKept)), ("amounts", .string(update.optionList)),
            ])
        }
    }

    /// The note as one line of a transcript.
    package var text: String {
        switch self {
        case .intentCreated(let intent):
            "Intent \(intent.id) created for \(intent.amount) (\(intent.captureMethod.rawValue) capture\(intent.orderReference.map { ", order \($0)" } ?? ""))."
        case .intentCanceled(let intent):
            "Intent \(intent.id) canceled (\(intent.cancellationReason?.rawValue ?? intent.status.rawValue))."
        case .tokenSealed(let token):
            "Apple Pay token sealed for the merchant (\(token.version), \(token.byteCount) bytes, transactionId \(token.transactionID.prefix(12))…) and sent to the backend."
        case .declined(let report):
            "Declined: \(report.failureNotice.failureCode)\(report.failureNotice.declineCode.map { " (\($0))" } ?? ""); the payer sees: \(report.failureNotice.payerMessage)"
        case .panelUpdated(let update):
            "Panel updated: \(update.summary)"
        }
    }
}
