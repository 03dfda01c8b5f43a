import PayPanel

/// How payments commands take an idempotency key and print an idempotent result, fresh or
/// replayed, so that a retry with the same key prints exactly what the first run printed.
enum IdempotentOutput {
    static let keyOption = OptionSpec.value(
        "--idempotency-key", "key",
        help: "Run at most once per key: a retry with the same key prints the first result (failures included). Keys expire after 24 h.")

    /// Prints `response`: its JSON (or text from it) on success; `Error:` and exit 1 for a
    /// stored failure. A replay is noted on standard error.
    static func print(
        _ response: IdempotentResponse, key: String?, json: Bool, console: Console, text: (JSONValue) -> [String]
    ) -> ExitStatus {
        if response.replayed, let key {
            console.printError("note: replayed the result of idempotency key \(JSONWriter.quoted(key)), first used at \(Timestamp.format(response.firstUsedAt))")
        }
        switch response.result {
        case .succeeded(let body):
            if json {
                console.printJSON(body)
            } else {
                text(body).forEach { console.print($0) }
            }
            return .success
        case .failed(_, let message, let body):
            if let body {
                if json {
                    console.printJSON(body)
                } else {
                    text(body).forEach { console.print($0) }
                }
            }
            console.printError("Error: \(message)")
            return .failure
        }
    }
}
