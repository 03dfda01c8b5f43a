import Foundation
import MockProcessor
import PayPanel

/// The test and admin endpoints (`/_mock/…`), for people writing tests. Each acts on the
/// caller's own account (its key), except `reset` with `scope=all`.
extension ProcessorService {
    /// GET /_mock/ledger — this account's ledger entries, oldest first.
    func ledger(_ tag: String) async -> Reply {
        do {
            let prefix = account(tag).ledgerPrefix
            let entries = try await mock.ledgerEntries(referencePrefix: prefix, now: now(tag))
            let data: [JSONValue] = entries.map { entry in
                var json = entry.json
                if case .object(var object) = json {
                    // The account prefix is the mock's bookkeeping; show the reference the caller knows.
                    object = JSONObject(object.members.map { member in
                        guard member.key == "reference" || member.key == "refundReference", case .string(let text) = member.value else { return member }
                        return (member.key, .string(text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text))
                    })
                    json = .object(object)
                }
                return json
            }
            return .ok(ObjectJSON.list(data, hasMore: false, url: "/_mock/ledger"))
        } catch {
            return .error(.apiError("The ledger cannot be read: \((error as? any PayPanelError)?.message ?? "unexpected failure")."))
        }
    }

    /// POST /_mock/reset — this account's data (ledger rows, intents, refunds, keys, chains,
    /// clock), or with `scope=all` every account's and the whole ledger.
    func reset(_ tag: String, all: Bool) async -> Reply {
        do {
            try await mock.resetLedger(referencePrefix: all ? nil : account(tag).ledgerPrefix)
            try await mock.resetWebhooks(account: all ? nil : tag)
        } catch {
            return .error(.apiError("The ledger cannot be reset: \((error as? any PayPanelError)?.message ?? "unexpected failure")."))
        }
        if all {
            forgetAll()
        } else {
            forget(tag)
        }
        do {
            if all { try store?.removeAll() } else { try store?.remove(tag) }
        } catch {
            return .error(.apiError("The account store cannot be reset (this process has forgotten the accounts, but a restart would bring them back): \((error as? any PayPanelError)?.message ?? "unexpected failure")."))
        }
        return .ok(.orderedObject([("object", "reset"), ("scope", all ? "all" : "account")]))
    }

    /// POST /_mock/chains — `card=<number>&chain=HTTP_503|APPROVE`: each authorization of this
    /// account with that card takes the next step (the last repeats); an empty chain removes it.
    func setChain(_ tag: String, _ parameters: Parameters) -> Reply {
        do {
            guard let cardText = try parameters.string("card") else { throw StripeError.missing("card") }
            let card: CardNumber
            do { card = try CardNumber(cardText) } catch {
                throw StripeError.invalidRequest("card: \(error.message).", param: "card")
            }
            let text = try parameters.string("chain") ?? ""
            if text.isEmpty {
                update(tag) { $0.cardChains[Account.cardKey(card.digits)] = nil }
                return .ok(.orderedObject([("object", "card_chain"), ("card", .string(card.description)), ("chain", .null)]))
            }
            let steps: [MockTrigger]
            do { steps = try TriggerChain.parse(text) } catch {
                throw StripeError.invalidRequest(error.message, param: "chain")
            }
            update(tag) { $0.cardChains[Account.cardKey(card.digits)] = CardChain(steps: steps.map(\.name)) }
            return .ok(.orderedObject([("object", "card_chain"), ("card", .string(card.description)), ("chain", .array(steps.map { .string($0.name) }))]))
        } catch let error as StripeError {
            return .error(error)
        } catch {
            return .error(.apiError("Unexpected failure."))
        }
    }

    /// POST /_mock/clock/advance — `seconds=N` moves this account's test clock forward
    /// (authorization expiry, pending refunds, idempotency key age).
    func advanceClock(_ tag: String, _ parameters: Parameters) -> Reply {
        do throws(StripeError) {
            guard let seconds = try parameters.integer("seconds", in: 1...(366 * 24 * 3600)) else { throw StripeError.missing("seconds") }
            update(tag) { $0.clockOffset += TimeInterval(seconds) }
            return .ok(.orderedObject([
                ("object", "test_clock"), ("frozen_time", ObjectJSON.unix(now(tag))), ("advanced_seconds", .number(Int64(account(tag).clockOffset))),
            ]))
        } catch {
            return .error(error)
        }
    }

    /// GET /_mock/triggers — the trigger table, the test payment method ids, Stripe's test cards
    /// with what a confirm answers on and off session (`test_cards`: what
    /// Tests/stripe-sdk/check_stripe_sdk.py confirms, card by card), and the network faults.
    nonisolated func triggers() -> Reply {
        let rows = TriggerTable.rows(configuration: mock.configuration).map(\.json)
        let methods: [JSONValue] = TestPaymentMethods.cards.map { .orderedObject([("id", .string($0.id)), ("number", .string($0.number))]) }
        let faults: [JSONValue] = [
            .orderedObject([("holder_name", "DROP_BEFORE"), ("does", "the connection is closed before the request reaches the ledger: nothing recorded")]),
            .orderedObject([("holder_name", "DROP_AFTER"), ("does", "the card's outcome is recorded, then the connection is closed without an answer")]),
        ]
        return .ok(.orderedObject([
            ("object", "trigger_table"), ("triggers", .array(rows)), ("payment_methods", .array(methods)), ("test_cards", StripeTestCards.json),
            ("network_faults", .array(faults)),
        ]))
    }
}
