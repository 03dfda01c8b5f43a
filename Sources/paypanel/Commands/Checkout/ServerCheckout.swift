import Foundation
import PayPanel
import PayPanelDemo

/// `paypanel checkout --server URL`: the same device against a running `paypanel serve`. The
/// checkout is created there with the merchant's secret key (`--api-key`, `$PAYPANEL_API_KEY`);
/// banner and panel come from the `push_payload` it returned; each payment is the device's
/// `POST /v1/checkouts/{id}/pay` with the client secret (see `RemoteCheckoutBackend`).
enum ServerCheckout {
    static let server = OptionSpec.value(
        "--server", "url", help: "Play the device against a running 'paypanel serve' at this http:// address (it must run with --test-root for Apple Pay).")
    static let apiKey = OptionSpec.value(
        "--api-key", "key", help: "With --server: the merchant's secret key (sk_…) that creates the checkout. Default: $\(apiKeyVariable).")
    static let apiKeyVariable = "PAYPANEL_API_KEY"

    /// The key from the option or the environment, else a usage error saying where to get one.
    static func key(_ arguments: ParsedArguments, environment: [String: String]) throws -> String {
        guard let key = arguments.value(apiKey.name) ?? environment[apiKeyVariable].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw UsageError(
                "'--server' needs the merchant's secret key: pass --api-key sk_… or set $\(apiKeyVariable) (paypanel serve printed one at its first start; 'paypanel keys create' makes more)")
        }
        return key
    }

    /// Creates the checkout on the server and returns the flow's payload and the backend that
    /// pays it there. Unreachable server, refused key: `CLIFailure` saying what to do.
    @MainActor static func open(
        url: String, key: String, captureMethod: CaptureMethod, clock: any WallClock, console: Console
    ) async throws -> (PushPayload, RemoteCheckoutBackend) {
        do throws(RemoteCheckoutError) {
            let connection = try ServerConnection(url: url)
            let parameters = JSONValue.orderedObject([("capture_method", .string(captureMethod.rawValue))])
            let result: Result<RemoteCheckout, RemoteCheckoutError> = await ServerConnection.offThread {
                Result { () throws(RemoteCheckoutError) in try connection.createCheckout(apiKey: key, parameters: parameters) }
            }
            let checkout = try result.get()
            console.printError("checkout \(checkout.id) created on \(connection.address); the device pays it with its client secret")
            console.flush()
            let backend = RemoteCheckoutBackend(connection: connection, checkout: checkout, apiKey: key, clock: clock)
            return (checkout.pushPayload, backend)
        } catch {
            throw CLIFailure(code: error.code, message: error.message)
        }
    }
}
