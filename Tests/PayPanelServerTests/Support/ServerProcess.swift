import Foundation
import Glibc
import PayPanel
import PayPanelHTTP
import PayPanelReliability
import Synchronization
import Testing
import TestSupport

struct ServerStartError: Error, CustomStringConvertible {
    let description: String
}

/// One real `paypanel serve --port 0` in a temporary directory: its port (from the
/// `listening on` line), the API key it printed, its stderr, and a stop by its pid.
final class ServerProcess: @unchecked Sendable {
    let server: ListeningProcess
    let directory: TemporaryDirectory
    var port: Int { server.port }
    var pid: pid_t { server.pid }
    /// The key printed at first start, or the one passed in.
    let key: String
    /// This server's /openapi.json (its routes depend on its flags), read at the first request.
    private let document = Mutex<OpenAPIConformance?>(nil)

    var databasePath: String { directory.file("payments.sqlite") }

    /// Starts the server and waits (up to 60 s: a loaded 2-core machine) for its line.
    /// `database`: the `--db` value (default: payments.sqlite in the directory).
    /// `launcher`: a program and its arguments that exec the binary (`unshare -m …`); its pid is the server's.
    init(
        directory: TemporaryDirectory? = nil, arguments: [String] = [], environment: [String: String] = [:], key: String? = nil,
        database: String? = nil, launcher: [String] = []
    ) throws {
        let directory = try directory ?? TemporaryDirectory("paypanel-server")
        self.directory = directory
        // The worker every 100 ms unless the test gives its own interval.
        let workerInterval = arguments.contains("--worker-interval") ? [] : ["--worker-interval", "100"]
        let serveArguments = ["serve", "--port", "0", "--db", database ?? directory.file("payments.sqlite"),
                              "--processor-db", directory.file("processor.sqlite")] + workerInterval + arguments
        server = try ListeningProcess.paypanelNow(serveArguments, name: "serve", directory: directory, environment: environment, launcher: launcher)
        if let key {
            self.key = key
        } else if let range = server.stderr.range(of: #"sk_[A-Za-z0-9]+"#, options: .regularExpression) {
            self.key = String(server.stderr[range])
        } else {
            self.key = ""
        }
    }

    /// `init` on a thread of its own: starting waits for the listening line, and a blocked
    /// cooperative thread would starve the in-process servers of other test suites.
    static func start(
        directory: TemporaryDirectory? = nil, arguments: [String] = [], environment: [String: String] = [:], key: String? = nil,
        database: String? = nil, launcher: [String] = []
    ) async throws -> ServerProcess {
        try await onThread {
            try ServerProcess(directory: directory, arguments: arguments, environment: environment, key: key, database: database, launcher: launcher)
        }
    }

    var stderr: String { server.stderr }
    var stdout: String { server.stdout }

    /// SIGTERM, then the exit status (waits up to 20 s, then SIGKILL and a failure status).
    @discardableResult
    func terminate() async -> Int32 {
        await server.stopGracefully(within: 20)
    }

    // MARK: - Requests

    /// One request on a new connection; `key: nil` sends the server's key, `""` none.
    /// Every response is checked against the server's OpenAPI document (`OpenAPIConformance`):
    /// a status, content type or body the document does not describe fails the calling test.
    func request(
        _ method: String, _ path: String, json: String? = nil, body: [UInt8]? = nil, key: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> APIResponse {
        let wire = try await send(method, path, json: json, body: body, key: key, headers: headers)
        let conformance = try await openAPIConformance()
        for violation in conformance.violations(
            method: method, target: path, status: wire.status, contentType: wire.headers["Content-Type"], body: wire.body) {
            Issue.record("the response does not match /openapi.json: \(violation)")
        }
        return APIResponse(wire: wire)
    }

    private func openAPIConformance() async throws -> OpenAPIConformance {
        if let known = document.withLock({ $0 }) { return known }
        let wire = try await send("GET", "/openapi.json", key: "")
        let conformance = OpenAPIConformance(document: try JSONParser().parse(wire.body))
        document.withLock { $0 = conformance }
        return conformance
    }

    private func send(
        _ method: String, _ path: String, json: String? = nil, body: [UInt8]? = nil, key: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> WireResponse {
        let port = port
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        let authorization = key ?? self.key
        if !authorization.isEmpty { head += "Authorization: Bearer \(authorization)\r\n" }
        let bytes = body ?? json.map { Array($0.utf8) } ?? []
        if json != nil && headers["Content-Type"] == nil { head += "Content-Type: application/json\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(bytes.count)\r\n\r\n"
        let request = Array(head.utf8) + bytes
        return try await onThread {
            let client = try RawClient.connect(to: port, timeout: 30)
            try client.send(request)
            return try client.readResponse()
        }
    }
}

/// A response with its body parsed as JSON (strictly).
struct APIResponse: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let text: String
    let json: JSONValue

    init(wire: WireResponse) {
        status = wire.status
        headers = wire.headers
        text = wire.text
        json = (try? JSONParser().parse(wire.body)) ?? .null
    }

    subscript(key: String) -> JSONValue? { json[key] }
    var id: String { json["id"]?.stringValue ?? "" }
    var errorCode: String? { json["error"]?["code"]?.stringValue }
    var errorType: String? { json["error"]?["type"]?.stringValue }
}

extension ServerProcess {
    /// Creates an intent; returns its id.
    func createIntent(amount: Int = 1000, capture: String = "automatic") async throws -> String {
        let response = try await request("POST", "/v1/payment_intents", json: #"{"amount":\#(amount),"currency":"USD","capture_method":"\#(capture)"}"#)
        guard response.status == 200 else { throw ServerStartError(description: "create failed: \(response.text)") }
        return response.id
    }

    /// Polls the intent until it is no longer in `status` (20 s at most: a loaded machine).
    func waitUntilMoved(from status: String, _ id: String) async throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try await request("GET", "/v1/payment_intents/\(id)")["status"]?.stringValue != status { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ServerStartError(description: "intent \(id) never left \(status)")
    }

    /// The reconciliation worker's finished passes, from `GET /healthz`.
    func workerPasses() async throws -> Int {
        let health = try await request("GET", "/healthz", key: "")
        guard let passes = health["worker_passes"]?.int64Value else { throw ServerStartError(description: "no worker_passes in /healthz: \(health.text)") }
        return Int(passes)
    }

    /// Returns once the worker has finished `count` more passes than when called (60 s at most:
    /// a loaded machine). What a test waits for before asserting that further passes changed
    /// nothing, instead of sleeping and hoping they ran.
    func waitForWorkerPasses(_ count: Int) async throws {
        try await LoopPasses.waitFor(count, of: "the worker") { try await workerPasses() }
    }

    /// The confirm body for a card.
    static func card(_ number: String, holder: String? = nil) -> String {
        let holderText = holder.map { #","holder_name":"\#($0)""# } ?? ""
        return #"{"payment_method":{"type":"card","number":"\#(number)","exp_month":12,"exp_year":2030\#(holderText)}}"#
    }
}
