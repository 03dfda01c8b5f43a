import Foundation
import PayPanel
import PayPanelHTTP

/// The access log as one JSON object per line: time, request id, method, path (no query),
/// status, duration. Never a header, a body, a key, a card number or a token.
public enum AccessLogLine {
    public static func json(_ entry: HTTPAccessLogEntry) -> String {
        let milliseconds = entry.duration.milliseconds
        return JSONWriter.string(.orderedObject([
            ("time", .string(Timestamp.format(entry.time))), ("request_id", .string(entry.requestID)),
            ("method", .optional(entry.method?.rawValue)), ("path", .optional(entry.path.map(SensitiveDigits.redacted))),
            ("status", .number(entry.status.code)),
            ("duration_ms", .number(JSONNumber(validatedLiteral: String(format: "%.3f", milliseconds)))),
        ]))
    }
}
