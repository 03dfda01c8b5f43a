/// The shape every PayPanel error has: a stable code for programs and a message for people.
///
/// Messages say what was wrong, where, and what to do. They never contain a card number,
/// a cryptogram or key material: errors end up in logs and terminals.
public protocol PayPanelError: Error, CustomStringConvertible, Sendable {
    /// A stable snake_case identifier, e.g. `idempotency_key_reused`.
    var code: String { get }
    /// One line for people: what was wrong, where, and what to do.
    var message: String { get }
}

extension PayPanelError {
    public var description: String { message }
}

/// The library's version, printed by `paypanel --version`.
public enum PayPanelVersion {
    public static let current = "0.1.0"
}
