import Foundation
import Glibc
import PayPanel

/// One client of the chaos soak, on a thread of its own: loops over seeded flows (`ChaosFlow`)
/// until the deadline, as a merchant's server and a payer's device would, and records every
/// answer it gets (`ChaosAnswer`).
///
/// It behaves as a careful merchant does while servers die under it: every POST carries an
/// `Idempotency-Key`; no answer, a 5xx, a 429 or a 409 that says "not now" is retried with the
/// same key, waiting longer each time (the server is coming back); before each step it reads
/// the intent and waits until nothing is in flight, so a step runs only when the intent is in
/// the state it needs. Its state belongs to its thread until the soak joins it.
final class ChaosClient: @unchecked Sendable {
    let index: Int
    private let servers: ChaosServers
    private let apiKey: String
    private let seed: UInt64
    private let deadline: Date
    /// How long one intent may stay in flight before the flow is given up (the end's settle
    /// still waits for it).
    private let stepSettleTimeout: Double
    private var random: SeededRandomNumberGenerator

    private(set) var answers: [ChaosAnswer] = []
    /// HTTP requests sent, reads included.
    private(set) var requests = 0
    private(set) var flows: [String: Int] = [:]
    /// Flows given up: an intent that stayed in flight, a create or a checkout never answered.
    private(set) var abandoned = 0
    private var step = 0
    private var flowNumber = 0

    init(index: Int, servers: ChaosServers, apiKey: String, seed: UInt64, deadline: Date, stepSettleTimeout: Double) {
        self.index = index
        self.servers = servers
        self.apiKey = apiKey
        self.seed = seed
        self.deadline = deadline
        self.stepSettleTimeout = stepSettleTimeout
        random = SeededRandomNumberGenerator(seed: ChaosSoak.stream(seed, index + 1))
    }

    /// Runs flows until the deadline (the one under way is finished).
    func run() {
        while Date() < deadline {
            let flow = ChaosFlow.all[Int(random.next() % UInt64(ChaosFlow.all.count))]
            flowNumber += 1
            flows[flow.name, default: 0] += 1
            switch flow {
            case .api(let flow): runAPIFlow(flow)
            case .device(let flow): runDeviceFlow(flow)
            }
        }
    }

    // MARK: - Flows

    private var orderReference: String { "chaos-\(seed)-\(index)-\(flowNumber)" }

    /// create → the flow's steps (confirm, capture or cancel, refunds), each on the settled intent.
    private func runAPIFlow(_ flow: ProcessorSoakFlow) {
        let json = #"{"amount":1000,"currency":"USD","capture_method":"\#(flow.captureMethod)","order_reference":"\#(orderReference)"}"#
        guard let intentID = createObject(.create, "/v1/payment_intents", json: json) else { return }
        runSteps(flow.steps, on: intentID)
    }

    /// checkout → the device pays with each card in turn until the sheet says success → the
    /// merchant's steps after it.
    private func runDeviceFlow(_ flow: ChaosDeviceFlow) {
        let json = #"{"capture_method":"\#(flow.captureMethod)","order_reference":"\#(orderReference)"}"#
        var secret: String?
        guard let checkoutID = createObject(.checkout, "/v1/checkouts", json: json, secret: &secret), let secret else { return }
        var intentID: String?
        var paid = false
        for card in flow.pays {
            // A pay that got no answer may have made the intent: the merchant reads the checkout.
            if intentID == nil, let checkout = get("/v1/checkouts/\(checkoutID)"), checkout.status == 200 {
                intentID = checkout.json["payment_intent"]?.stringValue
            }
            var known: Set<String> = []
            if let intentID {
                guard let intent = settledIntent(intentID) else { return }
                let status = intent["status"]?.stringValue
                if status == "requires_capture" || status == "succeeded" {
                    paid = true
                    break
                }
                known = Set(Self.attemptIDs(intent))
            }
            let holder = card.holder.map { #","holder_name":"\#($0)""# } ?? ""
            let body = #"{"amount":1000,"card":{"number":"\#(card.number)","exp_month":12,"exp_year":2030\#(holder)}}"#
            guard let answer = post(.pay, "/v1/checkouts/\(checkoutID)/pay", json: body, bearer: secret, intentID: intentID),
                  answer.status == 200
            else { continue }
            intentID = answer.json["payment_intent"]?.stringValue ?? intentID
            identifyPayAttempt(intentID: intentID, known: known)
            if answer.json["sheet"]?.stringValue == "success" {
                paid = true
                break
            }
        }
        guard paid, let intentID else { return }
        runSteps(flow.afterSuccess, on: intentID)
    }

    /// Each step on the intent once it is settled, when it is in the state the step needs.
    private func runSteps(_ steps: [ProcessorSoakFlow.Step], on intentID: String) {
        for step in steps {
            guard let intent = settledIntent(intentID) else { return }
            guard let request = step.request(on: intent, id: intentID) else { continue }
            _ = post(Self.call(of: step), request.path, json: request.json, bearer: apiKey, intentID: intentID)
        }
    }

    private static func call(of step: ProcessorSoakFlow.Step) -> ChaosAnswer.Call {
        switch step {
        case .confirm: .confirm
        case .capture: .capture
        case .void: .cancel
        case .refund: .refund
        }
    }

    /// Creates an intent or a checkout; the object's id, or nil (the flow is given up). A create
    /// cut by a kill holds its key (409 `idempotency_key_in_use`) for a day, since it attaches
    /// nothing to resume: one more try with a new key (the first object, if it was made, stays
    /// unpaid, which is harmless).
    private func createObject(_ call: ChaosAnswer.Call, _ path: String, json: String) -> String? {
        var secret: String?
        return createObject(call, path, json: json, secret: &secret)
    }

    private func createObject(_ call: ChaosAnswer.Call, _ path: String, json: String, secret: inout String?) -> String? {
        for _ in 0..<2 {
            if let answer = post(call, path, json: json, bearer: apiKey, intentID: nil), answer.status == 200,
               let id = answer.json["id"]?.stringValue {
                secret = answer.json["client_secret"]?.stringValue
                return id
            }
        }
        abandoned += 1
        return nil
    }

    /// The attempt the last pay's answer is about: the one the intent gained since before the
    /// pay (nothing else pays this checkout). Left unknown when the intent cannot be read.
    private func identifyPayAttempt(intentID: String?, known: Set<String>) {
        guard let intentID, let index = answers.lastIndex(where: { $0.call == .pay && $0.step == step && $0.httpStatus == 200 }),
              let intent = get("/v1/payment_intents/\(intentID)"), intent.status == 200
        else { return }
        answers[index].attemptID = Self.attemptIDs(intent.json).last { !known.contains($0) }
    }

    private static func attemptIDs(_ intent: JSONValue) -> [String] {
        (intent["attempts"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    // MARK: - Waiting for the worker

    /// The intent once nothing about it is in flight (not `processing`, no refund `pending`),
    /// or nil after `stepSettleTimeout` (the flow is given up; the end's settle waits for it).
    private func settledIntent(_ id: String) -> JSONValue? {
        let limit = Date().addingTimeInterval(stepSettleTimeout)
        while Date() < limit {
            if let answer = get("/v1/payment_intents/\(id)"), answer.status == 200 {
                if Self.isSettled(answer.json) { return answer.json }
            }
            usleep(250_000)
        }
        abandoned += 1
        return nil
    }

    static func isSettled(_ intent: JSONValue) -> Bool {
        let pending = intent["refunds"]?.arrayValue?.contains { $0["status"]?.stringValue == "pending" } ?? false
        return intent["status"]?.stringValue != "processing" && !pending
    }

    // MARK: - Calls

    /// The 409 codes that say "not now" and clear by themselves within seconds.
    private static let retriedConflicts: Set<String> = ["payment_intent_operation_in_flight", "version_conflict", "payment_in_progress"]

    /// A POST as a merchant retries it: one key for every try; again after no answer, a 5xx, a
    /// 429 or a passing 409, waiting 0.25, 0.5, 1, then 2 s (about 10 s in all: a restart takes
    /// a second or two). Every try's answer is recorded. The last answer, or nil if none came.
    private func post(_ call: ChaosAnswer.Call, _ path: String, json: String, bearer: String, intentID: String?) -> SoakAnswer? {
        step += 1
        let key = "chaos-\(seed)-\(index)-\(step)"
        var last: SoakAnswer?
        for attempt in 0..<8 {
            if attempt > 0 { usleep(UInt32(min(2.0, 0.25 * Double(1 << (attempt - 1))) * 1_000_000)) }
            let answer = send("POST", path, json: json, bearer: bearer, idempotencyKey: key)
            answers.append(Self.recorded(answer, client: index, step: step, call: call, intentID: intentID))
            guard let answer else { continue }
            last = answer
            let code = answer.json["error"]?["code"]?.stringValue
            let passing = answer.status >= 500 || answer.status == 429 || (answer.status == 409 && code.map(Self.retriedConflicts.contains) == true)
            if !passing { return answer }
        }
        return last
    }

    /// A read, tried again (up to about 10 s) while serve is down.
    private func get(_ path: String) -> SoakAnswer? {
        for attempt in 0..<8 {
            if attempt > 0 { usleep(UInt32(min(2.0, 0.25 * Double(1 << (attempt - 1))) * 1_000_000)) }
            if let answer = send("GET", path, json: nil, bearer: apiKey, idempotencyKey: nil), answer.status < 500 { return answer }
        }
        return nil
    }

    /// One request on a new connection to serve's current port; nil when no answer came
    /// (refused, reset, timed out).
    private func send(_ method: String, _ path: String, json: String?, bearer: String, idempotencyKey: String?) -> SoakAnswer? {
        requests += 1
        do {
            // 40 s: longer than the sheet's 25 s budget, the longest a pay may take.
            let client = try BenchmarkHTTPClient(port: servers.servePort, timeoutSeconds: 40)
            let response = try client.request(
                method, path, bearer: bearer, body: json.map { Array($0.utf8) }, headers: idempotencyKey.map { [("Idempotency-Key", $0)] } ?? [])
            return SoakAnswer(status: response.status, json: (try? JSONParser().parse(response.body)) ?? .null)
        } catch {
            return nil
        }
    }

    /// What an answer said, in the terms the audit checks (ids, statuses, amounts; never the
    /// checkout's client secret).
    static func recorded(_ answer: SoakAnswer?, client: Int, step: Int, call: ChaosAnswer.Call, intentID: String?) -> ChaosAnswer {
        guard let answer else { return ChaosAnswer(client: client, step: step, call: call, intentID: intentID, httpStatus: 0) }
        let body = answer.json
        var recorded = ChaosAnswer(
            client: client, step: step, call: call, intentID: intentID, httpStatus: answer.status, errorCode: body["error"]?["code"]?.stringValue)
        switch call {
        case .pay:
            recorded.status = body["sheet"]?.stringValue
            recorded.intentID = body["payment_intent"]?.stringValue ?? intentID
        case .refund:
            recorded.status = body["status"]?.stringValue
            recorded.refundID = body["id"]?.stringValue
            recorded.amount = body["amount"]?.int64Value
        case .checkout:
            recorded.status = body["status"]?.stringValue
        case .create, .confirm, .capture, .cancel:
            // A decline (402) carries the intent in its error.
            let intent = body["error"]?["payment_intent"] ?? body
            recorded.status = intent["status"]?.stringValue
            recorded.intentID = intent["id"]?.stringValue ?? intentID
            recorded.amount = intent["amount_captured"]?.int64Value
            if call == .confirm { recorded.attemptID = intent["attempts"]?.arrayValue?.first?["id"]?.stringValue }
        }
        return recorded
    }
}
