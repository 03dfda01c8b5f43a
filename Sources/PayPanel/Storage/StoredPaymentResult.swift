import Foundation

/// What an idempotency row keeps as the answer to replay: typed values, never a front end's
/// rendering. The CLI renders an intent or an outcome with its own `--json`, the HTTP API with
/// its own objects, each at replay time, so a change of either rendering cannot change what a
/// stored key replays.
package enum IdempotentPayload: Sendable, Equatable {
    /// The intent `createIntent` created, as it was then.
    case intent(PaymentIntent)
    /// Where an intent stood after an operation (`PaymentOutcome`'s parts).
    case outcome(intent: PaymentIntent, attempt: Attempt?, refund: Refund?)
    /// The whole answer of an HTTP route (the API's idempotency wraps the response at its edge,
    /// whichever route it is): its status and its JSON body.
    case httpResponse(status: Int, body: JSONValue)
    /// A row stored before results were typed (format version 0): the JSON its front end wrote,
    /// handed back as it was so it replays exactly as before. Nothing writes one any more.
    case version0(JSONValue)
}

/// The one place a stored result is encoded and decoded: the text in an idempotency row's
/// `response` column.
///
/// Version 1 is `{"resultVersion": 1, "payload": {"kind": …, …}}`, written with sorted keys
/// (`StoredJSON.encode`: the text `JSONEncoder` wrote, byte for byte) from the library's
/// snapshot types (`StoredSnapshots.swift`), whose field names are this format's own. Dates are seconds since 2001-01-01 as `Date` encodes them,
/// which round-trips exactly. Text without `resultVersion` is version 0, the JSON rows held
/// before. A version newer than this build reads is refused, never guessed at.
package enum StoredPaymentResult {
    /// The version this build writes, and the newest it reads.
    package static let currentVersion = 1

    /// The row text of `payload`.
    package static func encode(_ payload: IdempotentPayload) -> String {
        if case .version0(let value) = payload { return JSONWriter.string(value) }
        return StoredJSON.encode(Envelope(resultVersion: currentVersion, payload: PayloadRecord(payload)))
    }

    /// The payload of row text `text`, version 0 or 1.
    package static func decode(_ text: String) throws(StoredFormatError) -> IdempotentPayload {
        let (version, json) = try StoredJSON.read(text, versionKey: "resultVersion", newest: currentVersion)
        guard version != nil else { return .version0(json) }
        return try StoredJSON.decode(Envelope.self, from: json).payload.payload()
    }

    private struct Envelope: Codable {
        let resultVersion: Int
        let payload: PayloadRecord
    }
}

/// Why stored JSON (an idempotency result, an outbox payload) cannot be read back.
package enum StoredFormatError: Error, Equatable {
    /// The text is not JSON (the row was edited by hand).
    case notJSON
    /// A format version this build does not read (`found` nil: not a number), written by a
    /// newer build; `newest` is the newest this build reads.
    case unsupportedVersion(found: Int64?, newest: Int)
    /// Text of a known version missing a field or holding a wrong value (the detail says which).
    case malformed(String)

    /// A sentence for the person who sees it.
    package var detail: String {
        switch self {
        case .notJSON: "it is not JSON"
        case .unsupportedVersion(let found?, let newest):
            "it is in stored format version \(found), and this PayPanel reads versions 0 to \(newest): run the version that stored it or a newer one"
        case .unsupportedVersion(nil, _): "its format version is not a number"
        case .malformed(let detail): "it does not match its stored format (\(detail))"
        }
    }
}

// MARK: - Format version 1

/// `{"kind": "intent" | "outcome" | "http_response", …}`.
private struct PayloadRecord: Codable {
    var kind: String
    var intent: IntentRecord?
    var attempt: AttemptRecord?
    var refund: RefundRecord?
    var status: Int?
    /// The HTTP body as JSON text.
    var body: String?

    init(_ payload: IdempotentPayload) {
        switch payload {
        case .intent(let intent):
            kind = "intent"
            self.intent = IntentRecord(intent)
        case .outcome(let intent, let attempt, let refund):
            kind = "outcome"
            self.intent = IntentRecord(intent)
            self.attempt = attempt.map(AttemptRecord.init)
            self.refund = refund.map(RefundRecord.init)
        case .httpResponse(let status, let body):
            kind = "http_response"
            self.status = status
            self.body = JSONWriter.string(body)
        case .version0:
            preconditionFailure("version 0 is written as it was read (StoredPaymentResult.encode)")
        }
    }

    func payload() throws(StoredFormatError) -> IdempotentPayload {
        switch kind {
        case "intent":
            guard let intent else { throw .malformed("an intent payload without its intent") }
            return .intent(try intent.model())
        case "outcome":
            guard let intent else { throw .malformed("an outcome payload without its intent") }
            return .outcome(intent: try intent.model(), attempt: try attempt?.model(), refund: try refund?.model())
        case "http_response":
            guard let status, let body else { throw .malformed("an http_response payload without its status or body") }
            do { return .httpResponse(status: status, body: try JSONParser().parse(body)) } catch {
                throw .malformed("an http_response body that is not JSON")
            }
        default:
            throw .malformed("payload kind \"\(kind)\" is unknown")
        }
    }
}
