import PayPanel

// Tests look at SQLite rows directly (to tamper with them, or to check what was written);
// these reach the connection behind the SQLite store the test opened.
extension PaymentLedger {
    /// The SQLite connection of the ledger's store (tests always give it a `SQLitePaymentStore`).
    public var database: Database { (store as! SQLitePaymentStore).database }
}

extension IdempotencyStore {
    /// Keys in the SQLite payments database `database`.
    public convenience init(database: Database, lifetime: Double = 24 * 3600, inProgressLease: Double = 5 * 60) {
        self.init(store: SQLitePaymentStore(database: database), lifetime: lifetime, inProgressLease: inProgressLease)
    }
}

extension PaymentOutcome {
    /// The outcome as an idempotency key stores it (success or failure, with its JSON): lets
    /// tests compare a replay with the first run in one expression.
    package var result: IdempotentResult { PaymentService.idempotentResult(self) }
}

extension PaymentOutcome {
    /// The outcome's parts as an idempotency key stores them.
    package var storedPayload: IdempotentPayload { .outcome(intent: intent, attempt: attempt, refund: refund) }
}

extension IdempotentResult {
    /// A success whose payload is an HTTP 200 answer with `body`: the store keeps every payload
    /// alike, so its own tests mark results with any JSON this way.
    package static func succeeded(_ body: JSONValue) -> IdempotentResult { .succeeded(.httpResponse(status: 200, body: body)) }

    /// A failure whose payload is an HTTP answer with `body` (see `succeeded(_:)`).
    package static func failed(code: String, message: String, body: JSONValue) -> IdempotentResult {
        .failed(code: code, message: message, payload: .httpResponse(status: 402, body: body))
    }
}
