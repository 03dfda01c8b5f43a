/// The numeric address and port of the peer of a connection, e.g. `127.0.0.1:50312` or
/// `[::1]:50312`. Numeric only: the server never does reverse lookups.
public struct HTTPRemoteAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric host, without brackets for IPv6.
    public let host: String
    /// The peer's port.
    public let port: Int

    /// An address as reported by the socket layer.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
