import PayPanel

/// What the checkout's front ends drive: the backend in this process (`CheckoutBackend`) or a
/// running `paypanel serve` reached over HTTP (`RemoteCheckoutBackend`). Both answer the flow's
/// requests with a `BackendResult` read back from where the payment lives, so the screens are
/// the same either way.
public protocol DeviceBackend: Sendable {
    /// What the front ends must show while the checkout runs in test mode, else nil.
    var testModeNotice: String? { get }
    /// Performs `request`. Never throws: a refusal is the result's `problem`.
    func perform(_ request: BackendRequest) async -> BackendResult
    /// Once the flow has ended: closes what the backend keeps open for the checkout besides the
    /// intent the flow canceled (a server's checkout, which the payer may leave before any
    /// intent exists). Nil when the backend keeps nothing open.
    func close(after ending: CheckoutEnding) async -> CheckoutClosing?
}

extension DeviceBackend {
    /// Nothing to close: the flow's cancel of the unpaid intent is all there is.
    public func close(after ending: CheckoutEnding) async -> CheckoutClosing? { nil }
}

/// What closing the backend's checkout came to: its id and status afterwards, or why it
/// stayed open.
public struct CheckoutClosing: Sendable, Equatable {
    public let checkoutID: String
    /// The checkout's status afterwards (`canceled`, `paid`, `expired`, or `open` when closing
    /// was refused).
    public let status: String
    /// Why the checkout could not be closed, and what to do.
    public let problem: CheckoutProblem?

    public init(checkoutID: String, status: String, problem: CheckoutProblem?) {
        self.checkoutID = checkoutID
        self.status = status
        self.problem = problem
    }

    /// "Checkout co_… canceled on the server." or why it is still open.
    public var summary: String {
        if let problem { return "Checkout \(checkoutID) is still \(status) on the server: \(problem.message)" }
        return "Checkout \(checkoutID) \(status) on the server."
    }

    /// `{"event": "checkout_closed", "checkoutId": …, "status": …, "problem": …}`.
    public var json: JSONValue {
        .orderedObject([
            ("event", "checkout_closed"), ("checkoutId", .string(checkoutID)), ("status", .string(status)),
            ("problem", .optional(problem?.message)),
        ])
    }
}

extension CheckoutBackend: DeviceBackend {}
