import Foundation
import MockProcessor
import PayPanel

extension ProcessorServer {
    /// Fills test keys' accounts with authorized PaymentIntents (10.00 USD, manual capture,
    /// `pm_card_visa`), in process, for benchmarks that need a large account without making
    /// thousands of HTTP calls first (`paypanel bench processor-scale`).
    ///
    /// Each intent goes through the service exactly as `POST /v1/payment_intents` with
    /// `confirm=true` does (the ledger records each authorization), except that the account is
    /// not written after each one: every account is written once at the end. Run it on a
    /// ledger no server is using at the same time; a `processor serve` started afterwards on
    /// `processor.ledgerPath` finds the accounts.
    public static func seedAccounts(_ accounts: [(key: String, intents: Int)], processor: MockProcessor, clock: any WallClock) async throws {
        let service = try ProcessorService(mock: processor, clock: clock, webhookBox: try Self.webhookBox(ledgerPath: processor.ledgerPath))
        _ = await service.restore()
        await service.setPersistenceDeferred(true)
        let parameters = Parameters(.object([
            (key: "amount", value: .string("1000")), (key: "currency", value: .string("usd")), (key: "confirm", value: .string("true")),
            (key: "capture_method", value: .string("manual")), (key: "payment_method", value: .string("pm_card_visa")),
        ]))
        var tags: [String] = []
        for (key, count) in accounts {
            let tag: String
            do throws(StripeError) {
                tag = try await service.accountTag(forKey: key)
            } catch {
                throw SeedingError(message: "cannot seed the account of \(key.prefix(12))…: \(error.message)")
            }
            tags.append(tag)
            for index in 0..<count {
                let reply = await service.createIntent(tag, parameters, idempotencyKey: nil, scenario: nil)
                guard case .respond(.ok, _, _, _) = reply else {
                    throw SeedingError(message: "seeding intent \(index + 1) of \(count) was refused: \(reply)")
                }
            }
        }
        await service.setPersistenceDeferred(false)
        for tag in tags { await service.persist(tag) }
    }
}

/// `ProcessorServer.seedAccounts` could not create what it was asked for.
public struct SeedingError: PayPanelError {
    public let message: String
    public var code: String { "processor_seeding_failed" }
}
