import Foundation
import Glibc
import PayPanel
import PayPanelHTTP
import PayPanelReliability
import TestSupport

struct ProcessorServeError: Error, CustomStringConvertible {
    let description: String
}

/// One real `paypanel processor serve --port 0` (or `paypanel serve`) in a temporary
/// directory: its port from the `listening on` line, its output files, and a stop by its pid.
final class ServedProcess: @unchecked Sendable {
    let server: ListeningProcess
    let directory: TemporaryDirectory
    var port: Int { server.port }

    /// Starts `paypanel <arguments>` and waits (up to 60 s: a loaded 2-core machine) for its line.
    init(arguments: [String], directory: TemporaryDirectory, environment: [String: String] = [:]) throws {
        self.directory = directory
        server = try ListeningProcess.paypanelNow(arguments, name: "served", directory: directory, environment: environment)
    }

    /// `paypanel processor serve` on port 0 with its ledger in `directory`. `--now` fixes its
    /// clock (test clocks move it); `--hold 30` bounds held requests.
    static func processor(directory: TemporaryDirectory, extra: [String] = []) async throws -> ServedProcess {
        try await onThread {
            try ServedProcess(
                arguments: ["processor", "serve", "--port", "0", "--processor-db", directory.file("processor.sqlite"),
                            "--now", "2026-12-01T10:00:00Z", "--hold", "30"] + extra,
                directory: directory)
        }
    }

    /// `processor serve` in a new temporary directory named for the test, and a client whose
    /// secret key carries the same name, so each test has its own account on its own server.
    static func processorAndClient(_ name: String) async throws -> (ServedProcess, StripeTestClient) {
        let directory = try TemporaryDirectory("procserve-\(name)")
        let server = try await processor(directory: directory)
        return (server, StripeTestClient(port: server.port, key: "sk_test_\(name)"))
    }

    var stderr: String { server.stderr }
    var stdout: String { server.stdout }

    /// SIGKILL, as a crash would, and waits until the process is gone.
    func crash() async {
        server.process.signal(SIGKILL)
        await server.process.waitForExit(within: 30)
    }

    /// SIGTERM, then the exit status (waits up to 30 s, then SIGKILL and -1).
    @discardableResult
    func terminate() async -> Int32 {
        await server.stopGracefully(within: 30)
    }
}

/// What came back: a response, or the server closing the connection without one.
enum WireOutcome: Sendable {
    case response(Reply)
    case closedWithoutAnswer
    case noAnswerWithin(seconds: Int)

    var reply: Reply? {
        if case .response(let reply) = self { return reply }
        return nil
    }
}

/// A response with its body parsed as JSON.
struct Reply: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let text: String
    let json: JSONValue

    init(_ wire: WireResponse) {
        status = wire.status
        headers = wire.headers
        text = wire.text
        json = (try? JSONParser().parse(wire.body)) ?? .null
    }

    subscript(key: String) -> JSONValue? { json[key] }
    var id: String { json["id"]?.stringValue ?? "" }
    var status_: String { json["status"]?.stringValue ?? "" }
    var error: JSONValue? { json["error"] }
}

/// A Stripe-style client for the tests: form bodies, Bearer key, optional Idempotency-Key.
struct StripeTestClient: Sendable {
    let port: Int
    var key: String

    static func form(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }

    /// One request on a new connection, waiting `timeout` seconds for the answer.
    func send(
        _ method: String, _ path: String, _ pairs: [(String, String)] = [], idempotencyKey: String? = nil,
        rawBody: [UInt8]? = nil, headers: [String: String] = [:], authorization: String? = nil, timeout: Int = 60
    ) async throws -> WireOutcome {
        var target = path
        var body: [UInt8] = []
        if method == "GET" {
            if !pairs.isEmpty { target += "?" + Self.form(pairs) }
        } else {
            body = rawBody ?? Array(Self.form(pairs).utf8)
        }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        head += "Authorization: \(authorization ?? "Bearer \(key)")\r\n"
        if method != "GET" && headers["Content-Type"] == nil { head += "Content-Type: application/x-www-form-urlencoded\r\n" }
        if let idempotencyKey { head += "Idempotency-Key: \(idempotencyKey)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        let port = port
        return try await onThread {
            let client = try RawClient.connect(to: port, timeout: timeout)
            try client.send(request)
            do throws(ClientError) {
                return .response(Reply(try client.readResponse()))
            } catch {
                switch error {
                case .closedBeforeResponse(let bytes) where bytes.isEmpty: return .closedWithoutAnswer
                case .timedOut: return .noAnswerWithin(seconds: timeout)
                default: throw error
                }
            }
        }
    }

    /// `send` that expects a response.
    func call(
        _ method: String, _ path: String, _ pairs: [(String, String)] = [], idempotencyKey: String? = nil,
        rawBody: [UInt8]? = nil, headers: [String: String] = [:], authorization: String? = nil
    ) async throws -> Reply {
        let outcome = try await send(method, path, pairs, idempotencyKey: idempotencyKey, rawBody: rawBody, headers: headers, authorization: authorization)
        guard let reply = outcome.reply else { throw ProcessorServeError(description: "\(method) \(path): \(outcome)") }
        return reply
    }

    /// Creates and confirms a manual-capture intent with a test payment method or a raw card.
    func pay(
        _ amount: Int = 1000, method: String = "pm_card_visa", holder: String? = nil, capture: String = "manual",
        metadata: [String: String] = [:], idempotencyKey: String? = nil, timeout: Int = 60
    ) async throws -> WireOutcome {
        var pairs: [(String, String)] = [("amount", String(amount)), ("currency", "usd"), ("confirm", "true"), ("capture_method", capture)]
        if method.hasPrefix("pm_") {
            pairs.append(("payment_method", method))
        } else {
            pairs += [("payment_method_data[type]", "card"), ("payment_method_data[card][number]", method),
                      ("payment_method_data[card][exp_month]", "12"), ("payment_method_data[card][exp_year]", "2030")]
        }
        if let holder { pairs.append(("payment_method_data[billing_details][name]", holder)) }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { pairs.append(("metadata[\(key)]", value)) }
        return try await send("POST", "/v1/payment_intents", pairs, idempotencyKey: idempotencyKey, timeout: timeout)
    }

    /// The intents whose metadata[attempt_id] is `attempt`.
    func search(attempt: String) async throws -> [JSONValue] {
        let reply = try await call("GET", "/v1/payment_intents/search", [("query", "metadata['attempt_id']:'\(attempt)'")])
        return reply["data"]?.arrayValue ?? []
    }
}
