import PayPanel

/// The payments store's errors as the CLI says them: with the database file the command
/// opened and the command that helps, which the library (knowing neither) leaves out.
enum StoreErrorText {
    static func message(for error: PaymentStoreError, databasePath: String) -> String {
        switch error.reason {
        case .intentNotFound(let id):
            "no payment intent \(JSONWriter.quoted(id)) in \(databasePath): check the id with 'paypanel payments list'"
        case .corruptRow:
            "\(error.message) (database \(databasePath))"
        default:
            error.message
        }
    }
}
