import Foundation
import PayPanel
import PayPanelDemo
import Synchronization
import TestSupport
import Testing

/// A processor for the device tests, deciding by the card's last four digits the way the
/// mock processor's test cards do (9995 insufficient funds, 0002 generic decline, 3184 3-D
/// Secure), by the holder `TIMEOUT` (no answer), else approving. It records every
/// authorization so a test can check what reached it.
final class ScriptedProcessor: PaymentProcessor {
    struct Call: Sendable {
        let reference: String
        let amount: Amount
        let method: PaymentMethodData
    }

    private let calls = Mutex<[Call]>([])
    private let clock: any WallClock

    init(clock: any WallClock) {
        self.clock = clock
    }

    var authorizations: [Call] { calls.withLock { $0 } }

    func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome {
        calls.withLock { $0.append(Call(reference: request.reference, amount: request.amount, method: request.paymentMethod)) }
        if request.paymentMethod.holderName == "TIMEOUT" { return .unknown(reason: "no answer within the timeout") }
        switch request.paymentMethod.cardNumber.last4 {
        case "9995": return .declined(.insufficientFunds)
        case "0002": return .declined(.genericDecline)
        case "9987": return .declined(.lostCard)
        case "3184": return .challengeRequired
        default: return approval(request.amount)
        }
    }

    func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
        guard passed else { return .declined(.authenticationFailed) }
        let amount = calls.withLock { $0.last { $0.reference == reference }?.amount }
        return amount.map(approval) ?? .declined(.authorizationNotFound)
    }

    func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome { approval(request.amount) }
    func void(reference: String, timeout: Duration) async -> ProcessorOutcome {
        let amount = calls.withLock { $0.last { $0.reference == reference }?.amount }
        return amount.map(approval) ?? .declined(.authorizationNotFound)
    }
    func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome { approval(request.amount) }
    func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult { .notFound }

    private func approval(_ amount: Amount) -> ProcessorOutcome {
        .approved(ProcessorApproval(amount: amount, processorID: "auth_test", expiresAt: clock.now().addingTimeInterval(7 * 86_400)))
    }
}

/// A checkout on a real `PaymentService` (temporary database, manual clock) with the real
/// sealing, verification and decryption of Apple Pay tokens, and the scripted processor.
/// `send` runs the backend requests the flow asks for, as the CLI does.
@MainActor
final class DeviceHarness {
    nonisolated static let start = Date(timeIntervalSince1970: 1_795_939_200)  // 2026-11-29T08:00:00Z

    let directory: TemporaryDirectory
    let clock = ManualClock(DeviceHarness.start)
    let processor: ScriptedProcessor
    let service: PaymentService
    let backend: CheckoutBackend
    var flow: CheckoutFlow
    /// Every backend request the flow made, in order.
    private(set) var requests: [BackendRequest] = []
    /// Every note the flow gave, in order.
    private(set) var notes: [CheckoutNote] = []

    init(payload: PushPayload? = nil, captureMethod: CaptureMethod = .automatic) throws {
        directory = try TemporaryDirectory("paypanel-device")
        processor = ScriptedProcessor(clock: clock)
        service = PaymentService(store: try SQLitePaymentStore(path: directory.file("payments.sqlite"), clock: clock), processor: processor, clock: clock, randomSeed: 7)
        backend = CheckoutBackend.demo(service: service, clock: clock)
        let configuration = CheckoutFlowConfiguration(wallet: .standard(now: DeviceHarness.start), captureMethod: captureMethod)
        flow = try CheckoutFlow(payload: payload ?? PaymentActionPayloadBuilder().build(), configuration: configuration)
    }

    /// Applies `action` and runs whatever backend work follows; returns the last step.
    @discardableResult
    func send(_ action: CheckoutAction) async -> CheckoutStep {
        await follow(flow.handle(action, at: clock.now()))
    }

    /// Applies `key` and runs whatever backend work follows.
    @discardableResult
    func press(_ key: DeviceKey) async -> CheckoutStep {
        await follow(flow.handle(key: key, at: clock.now()))
    }

    /// Sends each action in turn, expecting none to be refused.
    func run(_ actions: [CheckoutAction], sourceLocation: SourceLocation = #_sourceLocation) async {
        for action in actions {
            let step = await send(action)
            if case .rejected(let message) = step {
                Issue.record("\(action) was refused on \(flow.screen): \(message)", sourceLocation: sourceLocation)
            }
        }
    }

    private func follow(_ first: CheckoutStep) async -> CheckoutStep {
        var step = first
        while case .backend(let request) = step {
            requests.append(request)
            let result = await backend.perform(request)
            step = flow.receive(result, at: clock.now())
        }
        notes += flow.takeNotes()
        return step
    }

    /// The intent as stored.
    func details(_ id: String) async throws -> PaymentDetails {
        try #require(try await service.details(id))
    }
}

extension PaymentNetwork {
    static let seedNetworks: [PaymentNetwork] = [.visa, .masterCard, .amex]
}
