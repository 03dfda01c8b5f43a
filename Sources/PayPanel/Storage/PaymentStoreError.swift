/// Why the payments store refused or failed an operation. Nothing was written.
public struct PaymentStoreError: PayPanelError, Equatable {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        case intentNotFound(String)
        /// Someone else changed the intent since the caller read it: reload and decide again.
        case versionConflict(intentID: String, expected: Int64, actual: Int64)
        /// The transition would break an invariant: a bug, stopped before anything was written.
        case invariantViolated(intentID: String, rules: [String])
        case corruptRow(table: String, id: String, detail: String)
        /// An Apple Pay token whose transactionId was seen before.
        case tokenReplayed(transactionID: String, firstIntentID: String?)
        /// A transactionId that is not the hex string Apple Pay tokens carry.
        case invalidTokenTransactionID
    }

    public let reason: Reason

    /// The error for `reason`. It names no file or server: the front end, which knows where the
    /// store is, says so beside the message.
    public init(reason: Reason) {
        self.reason = reason
    }

    public var code: String {
        switch reason {
        case .intentNotFound: "payment_intent_not_found"
        case .versionConflict: "version_conflict"
        case .invariantViolated: "invariant_violated"
        case .corruptRow: "database_corrupt_row"
        case .tokenReplayed: "token_replayed"
        case .invalidTokenTransactionID: "invalid_token_transaction_id"
        }
    }

    public var message: String {
        switch reason {
        case .intentNotFound(let id):
            "no payment intent \(JSONWriter.quoted(id)) in this payments database: check the id against the list of intents"
        case .versionConflict(let id, let expected, let actual):
            "payment intent \(id) changed while you were working on it (expected version \(expected), it is at \(actual)): reload it and try again"
        case .invariantViolated(let id, let rules):
            "refused to store payment intent \(id) because the change would break: \(rules.joined(separator: "; ")) (a bug: please report it)"
        case .corruptRow(let table, let id, let detail):
            "the payments database holds a \(table) row \(id) this program cannot read (\(detail)): restore the database from a backup"
        case .tokenReplayed(let transactionID, let intentID):
            "the Apple Pay token with transaction id \(transactionID) was already used\(intentID.map { " for payment intent \($0)" } ?? ""): a token pays once; ask the payer to pay again"
        case .invalidTokenTransactionID:
            "the Apple Pay token's transaction id must be 1 to 128 hexadecimal characters"
        }
    }
}
