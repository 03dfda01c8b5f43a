import Foundation
import Glibc
import PayPanel
import Testing
import TestSupport

/// The library's HTTP processor against a real `paypanel processor serve`: the network's
/// failures mapped to not processed / unknown, unknowns resolved by search.
@Suite("HTTPPaymentProcessor against processor serve")
struct HTTPPaymentProcessorTests {
    static let usd = try! Currency(code: "USD")

    func request(_ reference: String, card: String = "4242424242424242", holder: String? = nil, amount: Int64 = 1000) throws -> AuthorizationRequest {
        AuthorizationRequest(
            reference: reference, amount: Amount(minorUnits: amount, currency: Self.usd),
            paymentMethod: .card(number: try CardNumber(card), expiry: try CardExpiry(month: 12, year: 2030), holderName: holder))
    }

    @Test("Approve, capture, refund, look up; a decline keeps its code; 3-D Secure completes")
    func approveAndSettle() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let processor = HTTPPaymentProcessor(endpoint: try ProcessorEndpoint("http://127.0.0.1:\(server.port)"), secretKey: "sk_test_library")
        let approved = await processor.authorize(try request("att_ok"), timeout: .seconds(30))
        guard case .approved(let approval) = approved else {
            Issue.record("expected approval, got \(approved)")
            return
        }
        #expect(approval.amount.minorUnits == 1000)
        #expect(await processor.lookup(reference: "att_ok", operation: .authorize, timeout: .seconds(30)) == .found(approved))
        let captured = await processor.capture(CaptureRequest(reference: "att_ok", amount: Amount(minorUnits: 800, currency: Self.usd)), timeout: .seconds(30))
        guard case .approved(let capture) = captured else {
            Issue.record("expected capture, got \(captured)")
            return
        }
        #expect(capture.amount.minorUnits == 800)
        // The same capture again (a retry after a lost answer) gets the capture, not a refusal.
        let again = await processor.capture(CaptureRequest(reference: "att_ok", amount: Amount(minorUnits: 800, currency: Self.usd)), timeout: .seconds(30))
        #expect(again == captured)
        let refunded = await processor.refund(
            RefundRequest(reference: "att_ok", refundReference: "ref_1", amount: Amount(minorUnits: 300, currency: Self.usd)), timeout: .seconds(30))
        guard case .approved = refunded else {
            Issue.record("expected refund, got \(refunded)")
            return
        }
        #expect(await processor.lookup(reference: "ref_1", operation: .refund, timeout: .seconds(30)) == .found(refunded))
        #expect(await processor.lookup(reference: "ref_none", operation: .refund, timeout: .seconds(30)) == .notFound)

        let declined = await processor.authorize(try request("att_decline", card: "4000000000009995"), timeout: .seconds(30))
        #expect(declined == .declined(.insufficientFunds))
        #expect(await processor.lookup(reference: "att_decline", operation: .authorize, timeout: .seconds(30)) == .found(.declined(.insufficientFunds)))

        let challenged = await processor.authorize(try request("att_3ds", card: "4000002760003184"), timeout: .seconds(30))
        #expect(challenged == .challengeRequired)
        let completed = await processor.completeChallenge(reference: "att_3ds", passed: true, timeout: .seconds(30))
        guard case .approved = completed else {
            Issue.record("expected approval after the challenge, got \(completed)")
            return
        }
        let voided = await processor.void(reference: "att_3ds", timeout: .seconds(30))
        guard case .approved = voided else {
            Issue.record("expected the void, got \(voided)")
            return
        }
        #expect(await server.terminate() == 0)
    }

    @Test("A dropped connection after processing is unknown, and the lookup (search by attempt id) finds the approval")
    func droppedThenReconciled() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let processor = HTTPPaymentProcessor(endpoint: try ProcessorEndpoint("http://127.0.0.1:\(server.port)"), secretKey: "sk_test_library_drop")
        let outcome = await processor.authorize(try request("att_drop", holder: "DROP_AFTER"), timeout: .seconds(30))
        guard case .unknown = outcome else {
            Issue.record("expected unknown, got \(outcome)")
            return
        }
        guard case .found(.approved) = await processor.lookup(reference: "att_drop", operation: .authorize, timeout: .seconds(30)) else {
            Issue.record("the lookup did not find the approval")
            return
        }
        let dropBefore = await processor.authorize(try request("att_drop_before", holder: "DROP_BEFORE"), timeout: .seconds(30))
        guard case .unknown = dropBefore else {
            Issue.record("a close after the request was written is unknown to the client, got \(dropBefore)")
            return
        }
        #expect(await processor.lookup(reference: "att_drop_before", operation: .authorize, timeout: .seconds(30)) == .notFound)

        let timedOut = await processor.authorize(try request("att_slow", holder: "TIMEOUT_THEN_APPROVED"), timeout: .seconds(2))
        guard case .unknown = timedOut else {
            Issue.record("expected unknown after the timeout, got \(timedOut)")
            return
        }
        guard case .found(.approved) = await processor.lookup(reference: "att_slow", operation: .authorize, timeout: .seconds(30)) else {
            Issue.record("the lookup did not find the approval")
            return
        }
        let server500 = await processor.authorize(try request("att_500", holder: "HTTP_500_AFTER"), timeout: .seconds(30))
        guard case .unknown = server500 else {
            Issue.record("a 500 is unknown, got \(server500)")
            return
        }
        #expect(await server.terminate() == 0)
    }

    @Test("503 with Retry-After is retried within the timeout; a refused connection is not processed")
    func retryAndRefused() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let processor = HTTPPaymentProcessor(endpoint: try ProcessorEndpoint("http://127.0.0.1:\(server.port)"), secretKey: "sk_test_library_retry")
        let retried = await processor.authorize(try request("att_retry", holder: "HTTP_503|HTTP_429|APPROVE"), timeout: .seconds(30))
        guard case .approved = retried else {
            Issue.record("expected approval after two retries, got \(retried)")
            return
        }
        let outOfTime = await processor.authorize(try request("att_busy", holder: "HTTP_503"), timeout: .milliseconds(500))
        guard case .notProcessed = outOfTime else {
            Issue.record("expected not processed when Retry-After does not fit the timeout, got \(outOfTime)")
            return
        }
        #expect(await server.terminate() == 0)

        // Nothing listens on the port any more: refused before a byte was sent.
        let refused = await processor.authorize(try request("att_refused"), timeout: .seconds(10))
        guard case .notProcessed(let reason) = refused else {
            Issue.record("expected not processed, got \(refused)")
            return
        }
        #expect(reason.contains("nothing was sent"))
        #expect(await processor.lookup(reference: "att_refused", operation: .authorize, timeout: .seconds(5)) != .notFound, "an unreachable processor is unavailable, not 'not found'")
    }

    /// An operation on an authorization that first has to find the attempt's intent.
    enum Settlement: String, CaseIterable, CustomTestStringConvertible {
        case completeChallenge = "complete challenge", capture, void, refund
        var testDescription: String { rawValue }

        func run(on processor: HTTPPaymentProcessor) async -> ProcessorOutcome {
            let amount = Amount(minorUnits: 1000, currency: HTTPPaymentProcessorTests.usd)
            switch self {
            case .completeChallenge: return await processor.completeChallenge(reference: "att_down", passed: true, timeout: .seconds(5))
            case .capture: return await processor.capture(CaptureRequest(reference: "att_down", amount: amount), timeout: .seconds(5))
            case .void: return await processor.void(reference: "att_down", timeout: .seconds(5))
            case .refund:
                return await processor.refund(RefundRequest(reference: "att_down", refundReference: "re_down", amount: amount), timeout: .seconds(5))
            }
        }
    }

    /// After a restart the process no longer knows the attempt's intent and must search for
    /// it first; with the processor down that search gets no answer. That is "not processed"
    /// (nothing was sent: retry), never the decline `authorization_not_found`, which would
    /// record a refusal the processor never gave (a capture failed, a refund marked failed).
    @Test("An unreachable processor is never a decline", arguments: Settlement.allCases)
    func unreachableIsNotADecline(operation: Settlement) async throws {
        let processor = HTTPPaymentProcessor(endpoint: try ProcessorEndpoint("http://127.0.0.1:\(try Self.closedPort())"), secretKey: "sk_test_down")
        let outcome = await operation.run(on: processor)
        guard case .notProcessed(let reason) = outcome else {
            Issue.record("\(operation) against an unreachable processor: expected not processed, got \(outcome)")
            return
        }
        #expect(reason.contains("nothing was sent"), "\(reason)")
    }

    /// A server that answers every request as Stripe answers a path it has no route for (404
    /// "Unrecognized request URL", no `resource_missing`): a wrong `--processor` URL. Nothing
    /// was processed, so nothing is a decline — not the authorization, not a settlement.
    @Test("A processor with no route for the request is never a decline")
    func noSuchRouteIsNotADecline() async throws {
        let body = Array(#"{"error":{"type":"invalid_request_error","message":"Unrecognized request URL (POST: /v1/payment_intents)"}}"#.utf8)
        let answer = LoopbackHTTPServer.Answer.answer(404, body: body, contentType: "application/json")
        let paths = ["/v1/payment_intents", "/v1/payment_intents/search", "/v1/refunds", "/v1/payment_intents/pi_1/capture"]
        let server = try LoopbackHTTPServer(routes: Dictionary(uniqueKeysWithValues: paths.map { ($0, answer) }))
        defer { server.stop() }
        let processor = HTTPPaymentProcessor(endpoint: try ProcessorEndpoint("http://127.0.0.1:\(server.port)"), secretKey: "sk_test_wrong_url")
        var outcomes = [("authorize", await processor.authorize(try request("att_route"), timeout: .seconds(5)))]
        for operation in Settlement.allCases { outcomes.append((operation.rawValue, await operation.run(on: processor))) }
        for (name, outcome) in outcomes {
            guard case .notProcessed = outcome else {
                Issue.record("\(name) against a processor with no such route: expected not processed, got \(outcome)")
                continue
            }
        }
        #expect(!server.receivedTargets.isEmpty, "nothing reached the server")
    }

    /// A loopback port nothing listens on: bound by the kernel's choice, then closed.
    static func closedPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound)
        return UInt16(bigEndian: address.sin_port)
    }

    @Test("Processor URLs: http only, host and port, no path", arguments: [
        ("http://127.0.0.1:12111", true), ("http://localhost", true), ("http://[::1]:8080/", true),
        ("https://127.0.0.1", false), ("127.0.0.1:12111", false), ("http://127.0.0.1:12111/v1", false),
        ("http://127.0.0.1:0", false), ("http://127.0.0.1:99999", false), ("http://", false), ("http://a b", false),
    ])
    func endpoints(text: String, valid: Bool) {
        #expect(((try? ProcessorEndpoint(text)) != nil) == valid, "\(text)")
    }
}
