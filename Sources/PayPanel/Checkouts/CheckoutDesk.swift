import Foundation
import PayPanelHTTP

/// The checkout resource: what the HTTP routes call. It keeps checkouts in the payment
/// service's store (a `CheckoutStore` too) and pays them through `PaymentService`, which owns
/// the payments.
///
/// An actor: every operation on a checkout reads it, decides, and writes it back guarded by
/// the version it read, so two servers on one database never both win. Its clock is the
/// service's, injected, so expiry and the sheet's budget run in virtual time in tests.
public actor CheckoutDesk {
    /// It runs on its service's thread (`ActorThread`): the synchronous store calls below run on
    /// that thread, never the cooperative pool, and a pay call goes desk → service → desk
    /// without waking another thread on the way (two actors on one executor hop inline). With a
    /// thread of its own, `serve` made 135 context switches per payment, 107 without
    /// (docs/benchmarks.md). The desk's store writes queue behind the service's anyway: one
    /// database file has one writer at a time. It has no store of its own: every store call
    /// goes through `stored`, on the service's connection (a second connection on the same
    /// thread would make each one's commits throw the other's page cache away), and the wait
    /// for a flush suspends the desk instead of holding the thread it shares with the service's
    /// other payments.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { service.unownedExecutor }
    let service: PaymentService
    let clock: any WallClock
    var random: PaymentIDGenerator
    /// Checkouts whose pay call is running in this process: a second one waits its turn (refused).
    var paying: Set<String> = []

    /// A desk paying through `service`, its checkouts kept in the service's store. `randomSeed`
    /// makes ids and secrets reproducible in tests; the program leaves it nil (the system's
    /// random source).
    public init(service: PaymentService, clock: any WallClock, randomSeed: UInt64? = nil) {
        self.service = service
        self.clock = clock
        self.random = PaymentIDGenerator(seed: randomSeed)
    }

    // MARK: - The merchant's calls

    /// `POST /v1/checkouts`: reads `json` over the seed panel (so `{}` is the 5/10/20 USD
    /// checkout) and creates the checkout. Throws `invalid_checkout` with every violation.
    ///
    /// `nonisolated`: the body is read on the caller's thread (in `serve`, the request's handler
    /// thread), and only the insert runs on the desk's, which every payment of the service
    /// shares. Reading a body there, with the push payload it implies, was about 5 % of that
    /// thread's time in `bench serve` at 32 clients, and a refused body waited for the thread
    /// only to be refused.
    public nonisolated func create(json: JSONValue) async throws -> CreatedCheckout {
        let result = CheckoutParametersReader.read(json: json, base: .seed, now: clock.now())
        guard let parameters = result.parameters else { throw CheckoutError(.invalidParameters(result.report)) }
        return try await create(parameters)
    }

    /// Creates an open checkout. Without an expiry it closes `CheckoutParameters.defaultLifetime`
    /// after now. The client secret is in the result and nowhere else.
    public func create(_ parameters: CheckoutParameters) async throws -> CreatedCheckout {
        let now = clock.now()
        var panel = parameters.panel
        if panel.expiresAt == nil {
            panel.expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + CheckoutParameters.defaultLifetime).rounded(.down))
        }
        let id = random.make(.checkout)
        let secret = CheckoutSecret.make(checkoutID: id, randomPart: String(random.make(.checkout).dropFirst(3)))
        let checkout = Checkout(
            id: id, status: .open, panel: panel, captureMethod: parameters.captureMethod, paymentIntentID: nil,
            clientSecretHash: CheckoutSecret.hash(secret), createdAt: now, updatedAt: now, version: 1, metadata: parameters.metadata)
        try await stored { try $0.insertCheckout(checkout) }
        return CreatedCheckout(checkout: checkout, clientSecret: secret)
    }

    /// `GET /v1/checkouts/{id}`: the checkout, or nil. An open checkout whose intent was
    /// authorized elsewhere (a 3-D Secure challenge answered after `/pay` returned) is marked
    /// paid first, so the merchant never reads a paid checkout as open.
    public func checkout(_ id: String) async throws -> Checkout? {
        guard let checkout = try await stored({ try $0.checkout(id) }) else { return nil }
        return try await settledIfPaid(checkout)
    }

    /// `POST /v1/checkouts/{id}`: new panel fields (typically the amount options) read over the
    /// checkout's current ones. The push payload keeps the checkout's thread, so the device
    /// updates the open panel in place, keeping the selected amount when it is still offered
    /// (`NotificationPanelState.apply`). Only an open checkout can be updated.
    public func update(_ id: String, json: JSONValue) async throws -> Checkout {
        var checkout = try await require(id)
        guard checkout.status == .open else { throw CheckoutError(.notOpen(id: id, status: checkout.status)) }
        let now = clock.now()
        let base = CheckoutParameters(panel: checkout.panel, captureMethod: checkout.captureMethod, metadata: checkout.metadata)
        let result = CheckoutParametersReader.read(json: json, base: base, now: now)
        guard let parameters = result.parameters else { throw CheckoutError(.invalidParameters(result.report)) }
        checkout.panel = parameters.panel
        checkout.captureMethod = parameters.captureMethod
        checkout.metadata = parameters.metadata
        return try await save(checkout, at: now)
    }

    /// `POST /v1/checkouts/{id}/cancel`: an open checkout is canceled, with the intent of a
    /// failed try. Refused while a payment is in flight.
    public func cancel(_ id: String) async throws -> Checkout {
        try await close(try await require(id), as: .canceled, reason: .requestedByCustomer)
    }

    /// The worker's sweep: every open checkout whose `expires_at` has passed is expired (and
    /// the intent of a failed try canceled as abandoned). Checkouts that move meanwhile, or
    /// whose payment is in flight, are left for the next sweep.
    public func expireDue(limit: Int = 100) async throws -> [Checkout] {
        var expired: [Checkout] = []
        let now = clock.now()
        for checkout in try await stored({ try $0.checkoutsDueForExpiry(at: now, limit: limit) }) {
            do {
                expired.append(try await close(checkout, as: .expired, reason: .abandoned))
            } catch let error as CheckoutError {
                switch error.reason {
                case .versionConflict, .paymentInProgress, .notOpen: continue
                default: throw error
                }
            }
        }
        return expired
    }

    // MARK: - The device's calls

    /// The checkout a Bearer token may pay: the id when `clientSecret` is that checkout's
    /// secret (hash compared in constant time), nil otherwise. It authorizes nothing else.
    ///
    /// It reads the stored hash alone: the whole row (its panel read back through the panel's
    /// validator) is read once, by the pay call the token is for.
    public func authenticate(clientSecret: String) async throws -> String? {
        guard let id = CheckoutSecret.claimedCheckoutID(clientSecret),
            let storedHash = try await stored({ try $0.clientSecretHash(ofCheckout: id) })
        else {
            return nil
        }
        return CheckoutSecret.matches(clientSecret, storedHash: storedHash) ? id : nil
    }

    // MARK: - Helpers

    /// Runs `body`, calls of the service's store, and awaits the flushes they need without
    /// holding the thread (`PaymentService.withCheckoutStore`): it returns once what they
    /// wrote, and what they read, is durable.
    func stored<T: Sendable>(_ body: @Sendable (any CheckoutStore) throws -> T) async throws -> T {
        try await service.withCheckoutStore(body)
    }

    func require(_ id: String) async throws -> Checkout {
        guard let checkout = try await stored({ try $0.checkout(id) }) else { throw CheckoutError(.notFound(id)) }
        return checkout
    }

    /// Writes `checkout` as the next version of the row read at `checkout.version`.
    func save(_ checkout: Checkout, at now: Date) async throws -> Checkout {
        var next = checkout
        next.version = checkout.version + 1
        next.updatedAt = max(now, checkout.createdAt)
        let written = next
        guard try await stored({ try $0.updateCheckout(written, previousVersion: checkout.version) }) else {
            throw CheckoutError(.versionConflict(checkout.id))
        }
        return next
    }

    /// Cancels or expires an open checkout, canceling the waiting intent of a failed try first.
    private func close(_ checkout: Checkout, as status: CheckoutStatus, reason: CancellationReason) async throws -> Checkout {
        guard checkout.status == .open else { throw CheckoutError(.notOpen(id: checkout.id, status: checkout.status)) }
        guard !paying.contains(checkout.id) else { throw CheckoutError(.paymentInProgress(id: checkout.id, intentID: checkout.paymentIntentID)) }
        if let intentID = checkout.paymentIntentID, let intent = try await service.details(intentID)?.intent {
            switch intent.status {
            case .requiresPaymentMethod: _ = try await service.cancel(intentID, reason: reason)
            case .canceled, .expired: break
            case .requiresCapture, .succeeded:
                // Paid outside /pay (a challenge answered later): the checkout is paid, not closed.
                throw CheckoutError(.notOpen(id: checkout.id, status: try await markPaid(checkout).status))
            case .processing, .requiresAction, .requiresMerchantAction:
                throw CheckoutError(.paymentInProgress(id: checkout.id, intentID: intentID))
            }
        }
        var closed = checkout
        closed.status = status
        return try await save(closed, at: clock.now())
    }

    /// `checkout` as it stands once its intent's state is taken into account: marked paid when
    /// it is still open but its intent is authorized or captured; otherwise unchanged.
    func settledIfPaid(_ checkout: Checkout) async throws -> Checkout {
        guard checkout.status == .open, !paying.contains(checkout.id), let intentID = checkout.paymentIntentID,
              let status = try await service.details(intentID)?.intent.status,
              status == .requiresCapture || status == .succeeded else { return checkout }
        return try await markPaid(checkout)
    }

    /// Marks an open checkout paid, applied to the latest row when it moved meanwhile (an update
    /// of the panel); a checkout no longer open is returned as it is. Store errors are thrown.
    func markPaid(_ checkout: Checkout) async throws -> Checkout {
        var current = checkout
        for attempt in 1...3 {
            guard current.status == .open else { return current }
            current.status = .paid
            do {
                return try await save(current, at: clock.now())
            } catch let error as CheckoutError {
                guard case .versionConflict = error.reason, attempt < 3 else { throw error }
                current = try await require(checkout.id)
            }
        }
        return current
    }
}

/// A checkout just created, with its client secret: the only time the secret is known.
public struct CreatedCheckout: Sendable {
    public let checkout: Checkout
    public let clientSecret: String

    /// The create response: the checkout's API JSON with `client_secret`.
    public var json: JSONValue { checkout.apiJSON(clientSecret: clientSecret) }
}
