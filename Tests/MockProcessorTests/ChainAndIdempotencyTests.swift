import Foundation
import MockProcessor
import PayPanel
import Testing

/// Chains `A|B|C`, idempotency by reference, and two processor instances (two connections, as
/// two processes would have) sharing one ledger file.
@Suite struct ChainAndIdempotencyTests {
    @Test func aChainContinuesInAnotherProcessorInstanceOnTheSameFile() async throws {
        let harness = try ProcessorHarness()
        let other = try harness.secondProcessor()
        let request = Requests.authorization("att_1", method: try Requests.card(holder: "HTTP_503|HTTP_429|APPROVE"))

        #expect(await harness.processor.authorize(request, timeout: callerTimeout).isNotProcessed)
        #expect(await other.authorize(request, timeout: callerTimeout).isNotProcessed)
        let approval = try #require(await harness.processor.authorize(request, timeout: callerTimeout).approval)
        // Done: the stored approval is replayed, from either instance, without a second entry.
        #expect(await other.authorize(request, timeout: callerTimeout) == .approved(approval))
        let entries = try harness.entries()
        #expect(entries.count == 1)
        #expect(entries.first?.trigger == "APPROVE")
    }

    @Test func aChainInTheScenarioWorksTheSameWay() async throws {
        let harness = try ProcessorHarness()
        let request = Requests.authorization("att_1", method: try Requests.card(), scenario: "http_500_before|insufficient_funds")
        #expect(await harness.processor.authorize(request, timeout: callerTimeout).isUnknown)
        #expect(await harness.processor.authorize(request, timeout: callerTimeout) == .declined(.insufficientFunds))
    }

    @Test func theLastStepRepeatsOnceTheChainIsUsedUp() async throws {
        let harness = try ProcessorHarness()
        let request = Requests.authorization("att_1", method: try Requests.card(holder: "HTTP_503|HTTP_429"))
        for _ in 0..<4 {
            _ = await harness.processor.authorize(request, timeout: callerTimeout)
        }
        guard case .notProcessed(let reason) = await harness.processor.authorize(request, timeout: callerTimeout) else {
            Issue.record("a chain of refusals keeps refusing")
            return
        }
        #expect(reason.contains("429"))
    }

    @Test func eachReferenceHasItsOwnPositionInAChain() async throws {
        let harness = try ProcessorHarness()
        let method = try Requests.card(holder: "HTTP_503|APPROVE")
        #expect(await harness.processor.authorize(Requests.authorization("att_1", method: method), timeout: callerTimeout).isNotProcessed)
        // A new attempt starts the chain from its first step.
        #expect(await harness.processor.authorize(Requests.authorization("att_2", method: method), timeout: callerTimeout).isNotProcessed)
        #expect(await harness.processor.authorize(Requests.authorization("att_1", method: method), timeout: callerTimeout).approval != nil)
    }

    @Test func theSameReferenceAuthorizedTwiceGetsTheFirstResult() async throws {
        let harness = try ProcessorHarness()
        let declined = Requests.authorization("att_1", method: try Requests.card("4000000000009995"))
        #expect(await harness.processor.authorize(declined, timeout: callerTimeout) == .declined(.insufficientFunds))
        #expect(await harness.processor.authorize(declined, timeout: callerTimeout) == .declined(.insufficientFunds))

        let approved = Requests.authorization("att_2", method: try Requests.card())
        let first = await harness.processor.authorize(approved, timeout: callerTimeout)
        harness.clock.advance(by: 10)
        #expect(await harness.processor.authorize(approved, timeout: callerTimeout) == first)
        #expect(try harness.entries().count == 2)
    }

    @Test func theSameReferenceWithOtherParametersIsRefused() async throws {
        let harness = try ProcessorHarness()
        _ = await harness.processor.authorize(Requests.authorization("att_1", method: try Requests.card()), timeout: callerTimeout)
        let otherAmount = Requests.authorization("att_1", amount: 2000, method: try Requests.card())
        let otherCard = Requests.authorization("att_1", method: try Requests.card("5555555555554444"))
        #expect(await harness.processor.authorize(otherAmount, timeout: callerTimeout) == .declined(.idempotencyKeyReused))
        #expect(await harness.processor.authorize(otherCard, timeout: callerTimeout) == .declined(.idempotencyKeyReused))
        #expect(try harness.entries().count == 1)
    }

    @Test func malformedAuthorizationsAreRefusedWithoutAnEntry() async throws {
        let harness = try ProcessorHarness()
        let method = try Requests.card()
        let cases: [(AuthorizationRequest, DeclineCode)] = [
            (Requests.authorization("", method: method), .invalidRequest),
            (Requests.authorization(String(repeating: "a", count: 256), method: method), .invalidRequest),
            (Requests.authorization("att\n1", method: method), .invalidRequest),
            (Requests.authorization("att_1", amount: 0, method: method), .invalidAmount),
            (Requests.authorization("att_1", amount: -5, method: method), .invalidAmount),
        ]
        for (request, code) in cases {
            #expect(await harness.processor.authorize(request, timeout: callerTimeout) == .declined(code))
        }
        #expect(try harness.entries().isEmpty)
    }

    @Test func concurrentDuplicateAuthorizationsFromTwoInstancesApproveOnce() async throws {
        let harness = try ProcessorHarness()
        let processors = [harness.processor, try harness.secondProcessor()]
        let request = Requests.authorization("att_1", method: try Requests.card())
        let outcomes = await withTaskGroup(of: ProcessorOutcome.self) { group in
            for index in 0..<20 {
                group.addTask { await processors[index % 2].authorize(request, timeout: callerTimeout) }
            }
            return await group.reduce(into: [ProcessorOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.count == 20)
        #expect(Set(outcomes.compactMap { $0.approval?.processorID }).count == 1)
        #expect(outcomes.allSatisfy { $0.approval != nil })
        #expect(try harness.entries().count == 1)
    }

    @Test func twoConcurrentRefundsOf60OnACaptured100FromTwoInstancesSucceedOnce() async throws {
        let harness = try ProcessorHarness()
        let processors = [harness.processor, try harness.secondProcessor()]
        #expect(try await harness.processor.approvedAuthorization("att_1", amount: 10000) != nil)
        let capture = CaptureRequest(reference: "att_1", amount: Requests.amount(10000))
        #expect(await harness.processor.capture(capture, timeout: callerTimeout).approval != nil)

        let outcomes = await withTaskGroup(of: ProcessorOutcome.self) { group in
            for index in 0..<2 {
                let refund = RefundRequest(reference: "att_1", refundReference: "rf_\(index)", amount: Requests.amount(6000))
                group.addTask { await processors[index].refund(refund, timeout: callerTimeout) }
            }
            return await group.reduce(into: [ProcessorOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0.approval != nil }.count == 1)
        #expect(outcomes.filter { $0 == .declined(.amountTooLarge) }.count == 1)
        let refunded = try harness.entries().filter { $0.operation == .refund && $0.status == .approved }
        #expect(refunded.map(\.amount.minorUnits) == [6000])
    }

    static func parseError(_ text: String) -> MockTriggerError? {
        do {
            _ = try TriggerChain.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func chainsThatNameUnknownTriggersAreRejectedWithTheStep() throws {
        let typo = try #require(Self.parseError("HTTP_503|APROVE"))
        #expect(typo.step == "APROVE")
        #expect(typo.message.contains("\"APROVE\" is not a trigger"))
        #expect(typo.message.contains("paypanel processor triggers"))
        let empty = try #require(Self.parseError("HTTP_503||APPROVE"))
        #expect(empty.step == "")
        #expect(empty.message.contains("empty step"))
        let single = try #require(Self.parseError("NOPE"))
        #expect(single.step == nil)
        #expect(single.message == "\"NOPE\" is not a mock-processor trigger: see 'paypanel processor triggers' for the names, such as APPROVE, HTTP_503 or SLOW_5S")
        #expect(Self.parseError(Array(repeating: "APPROVE", count: 21).joined(separator: "|")) != nil)
        #expect(Self.parseError(Array(repeating: "APPROVE", count: 20).joined(separator: "|")) == nil)
        #expect(try TriggerChain.parse(" http_503 | slow_3s ") == [.http503, .slow(seconds: 3)])
    }

    @Test func anOrdinaryHolderNameIsNoTrigger() throws {
        #expect(try TriggerChain.triggers(inHolderName: "Jane Appleseed") == nil)
        #expect(try TriggerChain.triggers(inHolderName: "VOID_FAIL") == [.voidFail])
        #expect(throws: MockTriggerError.self) { try TriggerChain.triggers(inHolderName: "Smith|Jones") }
    }

    @Test(arguments: ["SLOW_0S", "SLOW_601S", "SLOW_05S", "SLOW_S", "SLOW_-1S", "SLOW_1.5S", "SLOW_5"])
    func slowTriggersNeedAWholeNumberOfSecondsInRange(_ name: String) {
        #expect(MockTrigger(name: name) == nil)
    }

    @Test func everyTriggerNameParsesBackToItsTrigger() {
        for trigger in MockTrigger.catalog {
            #expect(MockTrigger(name: trigger.name) == trigger)
            #expect(MockTrigger(name: trigger.name.lowercased()) == trigger)
        }
        #expect(MockTrigger(name: "SLOW_600S") == .slow(seconds: 600))
    }
}
