import Foundation
import PayPanel
import PayPanelHTTP

/// The running API: the HTTP server on the router, and the worker beside it (reconciliation
/// and the `WorkerDuties`).
///
/// ```swift
/// let server = try PaymentsServer.start(api: api, configuration: configuration, workerInterval: .seconds(1))
/// await server.shutdownOnTermination(TerminationSignals(), grace: .seconds(10))
/// ```
public final class PaymentsServer: Sendable {
    public let http: HTTPServer
    private let worker: ReconciliationWorker

    private init(http: HTTPServer, worker: ReconciliationWorker) {
        self.http = http
        self.worker = worker
    }

    /// Binds and starts serving, then starts the worker. Server-level refusals (413, 431,
    /// 408…) get the API's error envelope too.
    package static func start(
        api: PaymentsAPI, configuration: HTTPServer.Configuration, providers: [any APIRouteProvider] = [],
        workerInterval: Duration, workerDuties: WorkerDuties = WorkerDuties(),
        workerReport: @escaping @Sendable (WorkerEvent) -> Void = { _ in }
    ) throws -> PaymentsServer {
        var configuration = configuration
        configuration.rejectionResponse = { status, reason in
            let (kind, code): (APIError.Kind, String) = switch status {
            case .contentTooLarge: (.invalidRequest, "request_too_large")
            case .uriTooLong: (.invalidRequest, "request_target_too_long")
            // The body budget, or too many connections: the server's state, not the request's.
            case .serviceUnavailable: (.api, "server_busy")
            default: (.invalidRequest, "invalid_request")
            }
            // The server refused the request before routing it: no request id is known here;
            // the access log line carries it.
            return APIError(status: status, kind: kind, code: code, message: reason).response(requestID: "-")
        }
        let router = api.router(adding: providers)
        let http = try HTTPServer.start(configuration: configuration, admission: router.admission)
        let worker = ReconciliationWorker(
            service: api.service, interval: workerInterval, duties: workerDuties, passes: api.workerPasses, report: workerReport)
        return PaymentsServer(http: http, worker: worker)
    }

    public var port: Int { http.port }

    /// Stops accepting, lets requests in flight finish for up to `grace`, then stops the worker.
    public func shutdown(grace: Duration) async {
        await http.shutdown(grace: grace)
        await worker.stop()
    }

    /// Waits for SIGTERM/SIGINT, then `shutdown(grace:)`; returns the signal.
    @discardableResult
    public func shutdownOnTermination(_ signals: TerminationSignals, grace: Duration) async -> Int32 {
        let received = await signals.wait()
        await shutdown(grace: grace)
        return received
    }
}
