import Foundation

/// A value bound to a statement parameter or read from a column.
package enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift value that can be bound to a statement parameter.
package protocol DatabaseBindable {
    var databaseValue: DatabaseValue { get }
}

extension Int64: DatabaseBindable {
    package var databaseValue: DatabaseValue { .integer(self) }
}

extension Int: DatabaseBindable {
    package var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Bool: DatabaseBindable {
    package var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}

extension String: DatabaseBindable {
    package var databaseValue: DatabaseValue { .text(self) }
}

extension Double: DatabaseBindable {
    package var databaseValue: DatabaseValue { .real(self) }
}

extension Array: DatabaseBindable where Element == UInt8 {
    package var databaseValue: DatabaseValue { .blob(self) }
}

extension Date: DatabaseBindable {
    /// Dates are stored as integer milliseconds since the epoch (UTC).
    package var databaseValue: DatabaseValue { .integer(Timestamp.epochMilliseconds(self)) }
}

extension Optional: DatabaseBindable where Wrapped: DatabaseBindable {
    package var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}

extension DatabaseValue: DatabaseBindable {
    package var databaseValue: DatabaseValue { self }
}
