import Foundation

/// A value bound to a statement parameter or read from a column.
public enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift value that can be bound to a statement parameter.
public protocol DatabaseBindable {
    var databaseValue: DatabaseValue { get }
}

extension Int64: DatabaseBindable {
    public var databaseValue: DatabaseValue { .integer(self) }
}

extension Int: DatabaseBindable {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Bool: DatabaseBindable {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}

extension String: DatabaseBindable {
    public var databaseValue: DatabaseValue { .text(self) }
}

extension Double: DatabaseBindable {
    public var databaseValue: DatabaseValue { .real(self) }
}

extension Array: DatabaseBindable where Element == UInt8 {
    public var databaseValue: DatabaseValue { .blob(self) }
}

extension Date: DatabaseBindable {
    /// Dates are stored as integer milliseconds since the epoch (UTC).
    public var databaseValue: DatabaseValue { .integer(Timestamp.epochMilliseconds(self)) }
}

extension Optional: DatabaseBindable where Wrapped: DatabaseBindable {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}

extension DatabaseValue: DatabaseBindable {
    public var databaseValue: DatabaseValue { self }
}
