import Foundation
import PayPanel
import Synchronization
import TestSupport
import Testing

/// DNS rebinding on the relay's way out (docs/webhooks.md, "Destinations and DNS rebinding"):
/// the host is checked before the request and looked up again right after it; a name that
/// turned private in between disables the endpoint.
@Suite struct WebhookRebindingTests {
    /// A resolver that answers from a list, one answer per lookup (the last repeats).
    final class ChangingResolver: Sendable {
        private let answers: Mutex<[[IPAddress]]>
        let lookups = Atomic<Int>(0)

        init(_ answers: [[String]]) {
            self.answers = Mutex(answers.map { $0.compactMap(IPAddress.init) })
        }

        func resolve(_ host: String) -> [IPAddress]? {
            lookups.add(1, ordering: .relaxed)
            return answers.withLock { list in list.count > 1 ? list.removeFirst() : list.first }
        }
    }

    static func relay(_ harness: RelayHarness, resolver: ChangingResolver) throws -> WebhookRelay {
        WebhookRelay(
            store: try harness.database.factory.openWebhookStore(),
            box: try WebhookSecretBox(masterKey: RelayHarness.masterKey), transport: harness.transport,
            policy: WebhookDestinationPolicy(allowPrivate: false) { resolver.resolve($0) }, clock: harness.clock, randomSeed: 7,
            render: { _ in .orderedObject([("object", "payment_intent")]) })
    }

    @Test func aHostThatTurnsPrivateRightAfterTheCheckDisablesTheEndpoint() async throws {
        let harness = try RelayHarness(allowPrivate: false)
        let resolver = ChangingResolver([["93.184.216.34"], ["169.254.169.254"]])
        harness.relay = try Self.relay(harness, resolver: resolver)
        let endpoint = try harness.endpoints.create(url: "https://rebind.example/hook", eventTypes: ["*"], at: harness.clock.now()).record
        try harness.createIntent()
        let report = try await harness.relay.runPass()
        #expect(report.disabled == 1 && report.delivered == 0, "\(report)")
        #expect(resolver.lookups.load(ordering: .relaxed) == 2, "checked before, looked up again after")
        let eventID = try #require(harness.transport.sent.first?.headers["webhook-id"])
        let delivery = try harness.onlyDelivery(of: eventID)
        #expect(delivery.status == .failed)
        #expect(delivery.lastError?.contains("DNS rebinding") == true, "\(String(describing: delivery.lastError))")
        #expect(try harness.endpoints.list().first { $0.id == endpoint.id }?.status == .disabled)
        // Nothing more goes there: the next event is not even sent.
        try harness.createIntent()
        _ = try await harness.relay.runPass()
        #expect(harness.transport.sent.count == 1)
    }

    @Test func aHostThatStaysPublicIsDeliveredAsUsual() async throws {
        let harness = try RelayHarness(allowPrivate: false)
        let resolver = ChangingResolver([["93.184.216.34"], ["93.184.216.35"]])
        harness.relay = try Self.relay(harness, resolver: resolver)
        _ = try harness.endpoints.create(url: "https://stays.example/hook", eventTypes: ["*"], at: harness.clock.now())
        try harness.createIntent()
        let report = try await harness.relay.runPass()
        #expect(report.delivered == 1 && report.disabled == 0, "\(report)")
        #expect(resolver.lookups.load(ordering: .relaxed) == 2)
    }

    @Test func anAddressLiteralNeedsNoSecondLookup() async throws {
        let harness = try RelayHarness(allowPrivate: false)
        let resolver = ChangingResolver([["10.0.0.1"]])
        harness.relay = try Self.relay(harness, resolver: resolver)
        _ = try harness.endpoints.create(url: "https://93.184.216.34/hook", eventTypes: ["*"], at: harness.clock.now())
        try harness.createIntent()
        #expect(try await harness.relay.runPass().delivered == 1)
        #expect(resolver.lookups.load(ordering: .relaxed) == 0)
    }

    @Test func theCheckSaysWhichNameItResolved() {
        let policy = WebhookDestinationPolicy(allowPrivate: false) { _ in [IPAddress("93.184.216.34")!] }
        #expect(policy.check("https://shop.example/hook") == .allowed(checkedName: "shop.example"))
        #expect(policy.check("https://93.184.216.34/hook") == .allowed(checkedName: nil))
        #expect(policy.check("https://[::1]/hook") != .allowed(checkedName: nil))
        #expect(WebhookDestinationPolicy(allowPrivate: true).check("http://127.0.0.1:9/") == .allowed(checkedName: nil))
    }
}
