#if PostgreSQL
import Foundation
import Glibc
import MockProcessor
import PayPanel
import PayPanelPostgres
import TestSupport
import Testing

/// PostgreSQL stopped and started again under a running `serve` with clients paying: while it is
/// down every request is 503 `database_unreachable` with `Retry-After` (never a 500) and
/// `/readyz` says so; once it is back the same `serve` (no restart) takes payments again, every
/// client's retry with its Idempotency-Key ends in the answer it should have had, and the
/// payments database and the processor's ledger agree: nothing lost, nothing charged twice.
///
/// On a PostgreSQL of the test's own (`PrivatePostgreSQL`): the shared one is in use by other
/// tests. Skipped when PostgreSQL is not installed, unless `$PAYPANEL_TEST_POSTGRES_REQUIRED=1`.
@Suite struct PostgreSQLRestartTests {
    /// Every answer one client got, in order.
    struct Answer: Sendable {
        let step: String
        let status: Int
        let code: String?
        let retryAfter: String?
    }

    @Test func aDatabaseStoppedUnderLoadIs503WithRetryAfterAndThePoolRecoversWithNothingLost() async throws {
        let database = try Self.privateDatabase()
        let directory = try TemporaryDirectory("paypanel-pg-restart")
        let server = try await ServerProcess.start(directory: directory, database: database.url)
        let running = Recorder<Bool>()  // one value once the clients are to stop
        let answers = Recorder<Answer>()
        let outcomes = Recorder<(id: String, status: String)>()  // what each intent's confirm answered

        // Four merchants' clients, each paying one intent after another: create and confirm,
        // each with its own Idempotency-Key, retried with the same key on a 503 (as the answer
        // says) until it has a final answer.
        let clients = (0..<4).map { client in
            Task {
                var index = 0
                while running.all.isEmpty {
                    index += 1
                    let key = "client\(client)-\(index)"
                    let created = try await Self.untilFinal(answers, "create") {
                        try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#,
                                                 headers: ["Idempotency-Key": key + "-create"])
                    }
                    guard created.status == 200 else { continue }
                    let confirmed = try await Self.untilFinal(answers, "confirm") {
                        try await server.request("POST", "/v1/payment_intents/\(created.id)/confirm",
                                                 json: ServerProcess.card("4242424242424242"), headers: ["Idempotency-Key": key + "-confirm"])
                    }
                    outcomes.record((created.id, confirmed.status == 200 ? confirmed["status"]?.stringValue ?? "?" : "http \(confirmed.status)"))
                }
            }
        }

        // Payments before the stop: waited for, not a fixed time that a loaded machine may fill
        // with nothing.
        try await Self.waitUntil("payments before the stop") { outcomes.all.count >= 5 }
        let before = answers.all.count
        try await onThread { try database.stop() }
        // The outage is seen: /readyz says so and the clients' requests have met it.
        try await Self.waitUntil("serve to report the outage to a probe and to the clients") {
            try await server.request("GET", "/readyz", key: "").status == 503 && answers.all.contains { $0.status == 503 }
        }
        let ready = try await server.request("GET", "/readyz", key: "")
        #expect(ready.status == 503 && ready.errorCode == "database_unreachable", "\(ready.text)")
        let probe = try await server.request("GET", "/v1/payment_intents?limit=1")
        #expect(probe.status == 503 && probe.errorCode == "database_unreachable" && probe.headers["Retry-After"] == "5", "\(probe.text)")
        try await onThread { try database.start() }

        // The same serve recovers by itself: ready again, and payments go through.
        var readyAgain = false
        for _ in 0..<300 where !readyAgain {
            readyAgain = try await server.request("GET", "/readyz", key: "").status == 200
            if !readyAgain { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(readyAgain, "serve did not become ready within 30 s of PostgreSQL's start")
        let recovered = answers.all.count
        let paidBeforeReady = outcomes.all.count
        try await Self.waitUntil("payments after the restart") { outcomes.all.count >= paidBeforeReady + 5 }
        running.record(true)
        for client in clients { try await client.value }

        let all = answers.all
        let unexpected = all.filter { $0.status != 200 && !Self.isTransient($0) }
        #expect(unexpected.isEmpty, "answers other than 200, a 503 naming the database or a key in use: \(unexpected.prefix(5))")
        // A key whose give-up met the outage is given up once the database is back: its retry
        // waits moments, not the 5-minute lease.
        let keyInUse = all.filter { $0.code == "idempotency_key_in_use" }.count
        #expect(keyInUse < 50, "\(keyInUse) answers said a key was in use")
        let unavailable = all.filter { $0.status == 503 }
        print("PostgreSQL restart under load: \(all.count) answers (\(before) before the stop, \(recovered) when ready again), \(unavailable.count) of them 503, \(all.filter { $0.status == 409 }.count) 409 key in use, \(outcomes.all.count) payments")
        #expect(!unavailable.isEmpty, "no request met the outage (\(all.count) answers)")
        #expect(unavailable.allSatisfy { $0.retryAfter != nil }, "a 503 without Retry-After")
        #expect(all.count > recovered && recovered > before, "payments before, during and after: \(before), \(recovered), \(all.count)")

        // Every confirm ended in success (after its retries), and the books agree.
        let answered = outcomes.all
        #expect(!answered.isEmpty && answered.allSatisfy { $0.status == "succeeded" }, "\(answered.filter { $0.status != "succeeded" })")
        for (id, _) in answered {
            let ledger = try await IdempotencyAfterFailureTests.ledger(server, id)
            #expect(ledger == ["authorize:approved", "capture:approved"], "\(id): \(ledger)")
        }
        let factory = try PostgreSQLStoreFactory(url: database.url)
        let payments = PaymentLedger(store: try factory.openPaymentStore())
        var ids: [String] = []
        try payments.forEachIntent(status: nil, limit: nil) { ids.append($0.id) }
        let machines = try ids.compactMap { try payments.loadMachine($0) }
        let effects = try ProcessorLedger(path: directory.file("processor.sqlite"), clock: SystemClock()).entries(now: Date())
        #expect(LedgerAgreement.disagreements(payments: machines, ledger: effects, settled: true).isEmpty)
        #expect(await server.terminate() == 0, "serve ended badly after the outage:\n\(server.stderr.suffix(2000))")
    }

    /// Returns once `condition` holds, polled every 100 ms; throws naming `what` after 60 s (a
    /// loaded machine), so the test fails there instead of asserting on what has not happened.
    static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw ServerStartError(description: "waited 60 s for \(what)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The request until its answer is final: a 503, and a 409 `idempotency_key_in_use` (the
    /// key's earlier request is still being given up), are retried with the same request (and
    /// so the same Idempotency-Key) after a short pause, for up to 60 s, as Stripe's SDKs do.
    static func untilFinal(_ answers: Recorder<Answer>, _ step: String, _ send: () async throws -> APIResponse) async throws -> APIResponse {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let response = try await send()
            answers.record(Answer(step: step, status: response.status, code: response.errorCode, retryAfter: response.headers["Retry-After"]))
            let transient = response.status == 503 || response.errorCode == "idempotency_key_in_use"
            guard transient, ContinuousClock.now < deadline else { return response }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// A 503 that names the database's condition (unreachable while it is down, busy when a
    /// transaction met the restart and lost a race to its own retry), or the 409 of a key whose
    /// earlier request is not given up yet.
    static func isTransient(_ answer: Answer) -> Bool {
        (answer.status == 503 && ["database_unreachable", "database_busy"].contains(answer.code))
            || (answer.status == 409 && answer.code == "idempotency_key_in_use")
    }

    /// A PostgreSQL of this test's own, or the test skipped when PostgreSQL is not installed
    /// (a failure in CI, where it must run). A cluster that fails to start fails the test.
    static func privateDatabase() throws -> PrivatePostgreSQL {
        if let reason = PrivatePostgreSQL.skipReason() {
            try Test.cancel("\(reason): a PostgreSQL restart under load is not tested")
        }
        return try PrivatePostgreSQL()
    }
}
#endif
