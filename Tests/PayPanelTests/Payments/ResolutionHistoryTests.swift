import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// Operator resolutions in the history: their data decodes back to the same event (the note,
/// the operator, `forced`, what the processor held), and a history with them replays to the
/// stored rows.
@Suite struct ResolutionHistoryTests {
    static let usd = PaymentFixture.usd
    static let expiry = Timestamp.date(epochMilliseconds: Timestamp.epochMilliseconds(PaymentFixture.start) + 3 * 86_400_000 + 123)

    static let events: [PaymentEvent] = [
        resolved(.authorized, .authorization(HeldAuthorization(amount: PaymentFixture.amount, processorID: "auth_000001", expiresAt: expiry))),
        resolved(.authorized, .authorization(HeldAuthorization(amount: PaymentFixture.amount, processorID: nil, expiresAt: nil))),
        resolved(.succeeded, .captured(Amount(minorUnits: 650, currency: usd))),
        resolved(.succeeded, .nothingHeld("it has no record of the authorization"), forced: true),
        resolved(.canceled, .voided),
        resolved(.retry, .notKnown("the lookup of the authorization got no answer (no answer within 30s)"), forced: true),
        resolved(.retry, nil, forced: true),
        .operatorResolved(.refund(refundID: "re_1", succeeded: true), PaymentFixture.record(note: "seen in the processor's dashboard")),
        .operatorResolved(.refund(refundID: "re_1", succeeded: false), PaymentFixture.record()),
    ]

    static func resolved(_ resolution: IntentResolution, _ holding: ProcessorHolding?, forced: Bool = false) -> PaymentEvent {
        .operatorResolved(.intent(resolution), PaymentFixture.record(holding, forced: forced))
    }

    static func record(_ event: PaymentEvent, data: String? = nil) -> PaymentEventRecord {
        PaymentEventRecord(
            version: 5, type: event.name, fromStatus: .requiresMerchantAction, toStatus: nil, data: data ?? JSONWriter.string(event.data),
            occurredAt: PaymentFixture.start)
    }

    @Test(arguments: events)
    func theStoredDataDecodesToTheSameEvent(event: PaymentEvent) throws {
        let decoded = try StoredEventDecoder(storedAttempts: []).event(Self.record(event))
        #expect(decoded == event)
        #expect(decoded.name == "operator_resolved")
    }

    @Test(arguments: [
        (#""note":"checked the processor's dashboard""#, #""note":"line\none""#, "note"),
        (#""note":"checked the processor's dashboard""#, #""note":null"#, "note"),
        (#""operator":"alice""#, #""operator":"""#, "operator"),
        (#""forced":false"#, #""forced":"yes""#, "forced"),
        (#""holding":"voided""#, #""holding":"lost""#, "processor.holding"),
        (#""resolution":"mark_canceled""#, #""resolution":"mark_lost""#, "resolution"),
    ])
    func aTamperedResolutionDoesNotDecode(original: String, tampered: String, field: String) throws {
        let event = Self.resolved(.canceled, .voided)
        let data = JSONWriter.string(event.data)
        #expect(data.contains(original), "\(data)")
        #expect {
            try StoredEventDecoder(storedAttempts: []).event(Self.record(event, data: data.replacingOccurrences(of: original, with: tampered)))
        } throws: { error in
            (error as? HistoryDecodingError)?.reason == "field \(field) is missing or malformed"
        }
    }

    // MARK: - Replay through the repository

    /// An intent whose authorization stayed unknown until the lookups ran out.
    static func intentNeedingAnOperator(_ repository: PaymentLedger, captureMethod: CaptureMethod, seed: UInt64) throws -> (PaymentIntent, String) {
        var random = SeededRandomNumberGenerator(seed: seed)
        let intent = try StorageFixtures.createIntent(repository, captureMethod: captureMethod, random: &random)
        let attemptID = PaymentIDs.make(.attempt, using: &random)
        let start = StorageFixtures.start
        try repository.apply(.attemptOpened(PaymentFixture.opening(attemptID)), to: intent.id, expectedVersion: 1, at: start)
        try repository.apply(.processorAnswered(.authorize(attemptID: attemptID), .unknown(reason: "timeout")), to: intent.id, expectedVersion: nil, at: start.addingTimeInterval(30))
        let exhausted = try repository.apply(.reconciliationExhausted(.authorize(attemptID: attemptID)), to: intent.id, expectedVersion: nil, at: start.addingTimeInterval(60))
        #expect(exhausted.intent.status == .requiresMerchantAction)
        return (exhausted.intent, attemptID)
    }

    @Test(arguments: [CaptureMethod.manual, .automatic])
    func historiesWithEveryResolutionReplayToTheStoredRows(captureMethod: CaptureMethod) throws {
        let repository = try StorageFixtures.memoryRepository()
        let at = StorageFixtures.start.addingTimeInterval(120)
        let held = ProcessorHolding.authorization(HeldAuthorization(amount: PaymentFixture.amount, processorID: "auth_000009", expiresAt: Self.expiry))
        let cases: [(PaymentEvent, [(Int, PaymentEvent)])] = [
            (Self.resolved(.authorized, held), []),
            (Self.resolved(.succeeded, .captured(PaymentFixture.amount)), []),
            (Self.resolved(.succeeded, .nothingHeld("it has no record of the authorization"), forced: true), []),
            (Self.resolved(.canceled, .nothingHeld("it has no record of the authorization")), []),
            (Self.resolved(.retry, .voided), []),
            (Self.resolved(.retry, held, forced: true), []),
            (Self.resolved(.canceled, held), [(1, .processorAnswered(.void(attemptID: "ATTEMPT"), PaymentFixture.approval(PaymentFixture.amount)))]),
            (Self.resolved(.canceled, held), [(1, .processorAnswered(.void(attemptID: "ATTEMPT"), .declined(.voidFailed)))]),
        ]
        for (index, (resolution, after)) in cases.enumerated() {
            let (intent, attemptID) = try Self.intentNeedingAnOperator(repository, captureMethod: captureMethod, seed: UInt64(10 + index))
            let transition = try repository.apply(resolution, to: intent.id, expectedVersion: intent.version, at: at)
            var work = transition.executorWork
            for (seconds, event) in after {
                let concrete: PaymentEvent = switch event {
                case .processorAnswered(.void, let outcome): .processorAnswered(.void(attemptID: attemptID), outcome)
                default: event
                }
                work = try repository.apply(concrete, to: intent.id, expectedVersion: nil, at: at.addingTimeInterval(TimeInterval(seconds))).executorWork
            }
            if case .callProcessorCapture(_, let amount)? = work.first {
                try repository.apply(.processorAnswered(.capture(attemptID: attemptID), PaymentFixture.approval(amount)), to: intent.id, expectedVersion: nil, at: at.addingTimeInterval(2))
            }
            let stored = try #require(try repository.loadMachine(intent.id))
            #expect(PaymentInvariants.violations(of: stored) == [], "\(resolution.data)")
            #expect(try HistoryReplay(ledger: repository).discrepancies(intentID: intent.id) == [], "\(resolution.data)")
            let details = try #require(try repository.details(intent.id))
            let recorded = try #require(details.events.first { $0.type == "operator_resolved" })
            #expect(try JSONParser().parse(recorded.data) == resolution.data)
        }
    }
}
