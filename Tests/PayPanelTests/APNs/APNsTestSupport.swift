import Foundation
@testable import PayPanel
import Synchronization
import TestSupport

/// A transport that answers from a script and keeps every request, for unit tests.
final class ScriptedAPNsTransport: APNsTransport {
    struct Request: Sendable {
        let url: String
        let headers: [String: String]
        let body: [UInt8]
    }

    enum Answer: Sendable {
        case status(Int, reason: String? = nil, timestamp: Int64? = nil)
        case noAnswer
    }

    private let state: Mutex<(answers: [Answer], requests: [Request])>

    init(_ answers: [Answer]) {
        state = Mutex((answers, []))
    }

    var requests: [Request] { state.withLock { $0.requests } }

    func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws(APNsTransportError) -> APNsHTTPAnswer {
        let answer = state.withLock { state -> Answer in
            state.requests.append(Request(url: url, headers: Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }), body: body))
            return state.answers.isEmpty ? .status(200) : state.answers.removeFirst()
        }
        let apnsID = headers.first { $0.name == "apns-id" }?.value
        switch answer {
        case .noAnswer:
            throw APNsTransportError("connection reset")
        case .status(let status, let reason, let timestamp):
            var members: [(String, JSONValue)] = []
            if let reason { members.append(("reason", .string(reason))) }
            if let timestamp { members.append(("timestamp", .number(timestamp))) }
            let body = members.isEmpty ? [] : Array(JSONWriter.string(.orderedObject(members)).utf8)
            return APNsHTTPAnswer(status: status, apnsID: apnsID, body: body)
        }
    }
}

enum APNsFixtures {
    static let start = Date(timeIntervalSince1970: 1_796_000_000)
    static let token = String(repeating: "ab", count: 32)
    static let topic = "com.example.PayPanelDemo"

    /// A P-256 key from a fixed scalar: the same key every run.
    static func signingKey() throws -> APNsSigningKey {
        let scalar = [UInt8](repeating: 0x11, count: 32)
        return try APNsSigningKey(keyID: "ABC123DEFG", teamID: "TEAM123456", privateKey: ECPrivateKey(p256Scalar: scalar))
    }

    static func provider(_ transport: ScriptedAPNsTransport, clock: ManualClock, environment: APNsEnvironment = .development) throws -> APNsProvider {
        APNsProvider(tokens: APNsProviderTokenSource(key: try signingKey(), clock: clock), transport: transport, environment: environment,
                     baseURL: "https://apns.test")
    }

    /// An outbox on a device store of `database` (a SQLite file or a PostgreSQL schema);
    /// `secondConnection` opens another store on it (a second sender, or the test looking at rows).
    static func outbox(_ transport: ScriptedAPNsTransport?, clock: ManualClock, on database: FactoryUnderTest) throws -> PushOutbox {
        PushOutbox(store: try database.factory.openDeviceStore(), provider: try transport.map { try provider($0, clock: clock) },
                   clock: clock, randomSeed: 7)
    }

    static func secondConnection(_ database: FactoryUnderTest) throws -> any DeviceStore {
        try database.factory.openDeviceStore()
    }

    static let payload = Array(#"{"aps":{"alert":{"title":"Pay","body":"5 USD"},"mutable-content":1}}"#.utf8)
}
