/// One result row, whichever database produced it: what the row mappings (`PaymentRows`) read,
/// so SQLite and PostgreSQL turn the same columns into the same values with one piece of code.
/// Columns are zero-based; integers are 64-bit; a NULL reads as 0, "" or false unless asked for
/// as an optional.
package protocol StoredRow {
    func isNull(_ index: Int) -> Bool
    func int64(_ index: Int) -> Int64
    func int(_ index: Int) -> Int
    func optionalInt64(_ index: Int) -> Int64?
    func bool(_ index: Int) -> Bool
    func string(_ index: Int) -> String
    func optionalString(_ index: Int) -> String?
    func blob(_ index: Int) -> [UInt8]
}

extension Row: StoredRow {}
