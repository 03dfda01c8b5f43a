import Foundation

/// The processor crash soak could not run (a server did not start, a request was refused).
public struct ProcessorSoakError: Error, CustomStringConvertible {
    public let code: String
    public let message: String
    public var description: String { message }
}
