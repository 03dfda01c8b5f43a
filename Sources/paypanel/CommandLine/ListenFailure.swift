import PayPanelHTTP

/// What the commands that listen (`serve`, `processor serve`, `webhooks listen`) say when they
/// cannot: the address, the system's reason, and the option that helps.
enum ListenFailure {
    /// The `Error:` line's failure for `error`, met listening on `port` (the reason names the
    /// address).
    static func failure(_ error: HTTPServerError, port: Int) -> CLIFailure {
        let advice = error.isAddressInUse
            ? "another process holds port \(port): stop it, or pick another port with --port (--port 0 picks a free one)"
            : "check --host, or pick another port with --port (--port 0 picks a free one)"
        return CLIFailure(code: "listen_failed", message: "\(error.reason): \(advice)")
    }
}
