import Foundation
import PayPanel

/// What the processor sends back, before the latency and the caller's timeout are applied.
enum ProcessorAnswer: Equatable {
    /// An answer, arriving after the latency plus `extraDelay` (SLOW_<n>S).
    case outcome(ProcessorOutcome, extraDelay: Duration = .zero)
    /// No answer ever arrives: the caller's timeout runs out.
    case none
    /// HTTP 500: the caller cannot tell whether anything happened.
    case serverError
    /// Refused before processing (HTTP 503, 429).
    case refused(reason: String)
}

extension ProcessorLedger {
    /// The longest reference accepted (UTF-8 bytes): attempt ids are short; a huge one is a bug.
    static let maximumReferenceLength = 255

    static func isValidReference(_ reference: String) -> Bool {
        !reference.isEmpty && reference.utf8.count <= maximumReferenceLength
            && !reference.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Authorizes once per reference. In one transaction: replay a stored result (declines
    /// included; the same reference with another amount or card is refused), else pick the
    /// trigger (taking the next step of a chain), check the cryptogram, and record the result.
    /// Malformed requests and requests refused before processing leave no entry.
    func authorize(_ request: AuthorizationRequest, now: Date, configuration: MockProcessorConfiguration) throws
        -> ProcessorAnswer
    {
        guard Self.isValidReference(request.reference) else { return .outcome(.declined(.invalidRequest)) }
        guard request.amount.minorUnits > 0 else { return .outcome(.declined(.invalidAmount)) }
        let card = request.paymentMethod.cardNumber
        return try transaction(now: now) {
            if let existing = try authorization(request.reference, now: now) {
                let sameRequest = existing.amount == request.amount && existing.last4 == card.last4
                    && existing.network == card.network?.rawValue
                return .outcome(sameRequest ? existing.outcome : .declined(.idempotencyKeyReused))
            }
            let selection: TriggerSelection
            do {
                selection = try TriggerSelection.select(for: request, now: now)
            } catch {
                // A real processor would answer 400; callers validate triggers first
                // (`TriggerChain.parse`) to get the reason.
                return .outcome(.declined(.invalidRequest))
            }
            let trigger = try takeStep(of: selection, reference: request.reference)
            switch trigger.effect {
            case .refused(let reason):
                return .refused(reason: reason)
            case .failsBeforeProcessing:
                return .serverError
            case .neverArrives:
                return .none
            case .processed(let triggered, let channel):
                let result = try cryptogramDecline(request, now: now, configuration: configuration).map(ProcessedResult.declined)
                    ?? triggered
                let entry = try append(
                    NewEntry(
                        reference: request.reference, operation: .authorize, amount: request.amount, result: result,
                        network: card.network?.rawValue, last4: card.last4, trigger: trigger.name,
                        expiresAt: result == .approved ? now.addingTimeInterval(configuration.authorizationWindow.timeInterval) : nil),
                    now: now)
                switch channel {
                case .immediate: return .outcome(entry.outcome)
                case .delayed(let delay): return .outcome(entry.outcome, extraDelay: delay)
                case .lost: return .none
                case .serverError: return .serverError
                }
            }
        }
    }

    /// The trigger for this call: the only step, or the chain's next step (the last one repeats
    /// once the chain is used up). The position is stored, so a retry from another process
    /// continues the chain.
    private func takeStep(of selection: TriggerSelection, reference: String) throws -> MockTrigger {
        guard let key = selection.chainKey else { return selection.steps[0] }
        let position = try database.queryFirst(
            "SELECT next_step FROM chain_positions WHERE reference = ? AND chain = ?", [reference, key]) { $0.int(0) } ?? 0
        try database.execute(
            """
            INSERT INTO chain_positions (reference, chain, next_step) VALUES (?, ?, ?)
            ON CONFLICT (reference, chain) DO UPDATE SET next_step = excluded.next_step
            """, [reference, key, min(position + 1, selection.steps.count)])
        return selection.steps[min(position, selection.steps.count - 1)]
    }

    /// A network token's cryptogram is single-use and short-lived: a second presentation is
    /// `invalid_cryptogram`, one older than the lifetime `expired_cryptogram`. Only its SHA-256
    /// is kept, and it is kept whatever the outcome: the issuer has seen it.
    private func cryptogramDecline(_ request: AuthorizationRequest, now: Date, configuration: MockProcessorConfiguration)
        throws -> DeclineCode?
    {
        guard case .networkToken(_, _, let cryptogram, _, _) = request.paymentMethod else { return nil }
        let digest = SHA256.hash(cryptogram.value)
        let seenBefore = try database.queryFirst("SELECT 1 FROM used_cryptograms WHERE sha256 = ?", [digest]) { _ in true } ?? false
        if seenBefore { return .invalidCryptogram }
        try database.execute(
            "INSERT INTO used_cryptograms (sha256, reference, first_used_at) VALUES (?, ?, ?)", [digest, request.reference, now])
        if let generatedAt = cryptogram.generatedAt,
            now.timeIntervalSince(generatedAt) > configuration.cryptogramLifetime.timeInterval
        {
            return .expiredCryptogram
        }
        return nil
    }

    /// Completes a pending 3-D Secure challenge. A challenge already completed (or an
    /// authorization that never had one) answers with its stored result.
    func completeChallenge(reference: String, passed: Bool, now: Date, configuration: MockProcessorConfiguration) throws
        -> ProcessorAnswer
    {
        try transaction(now: now) {
            guard let authorization = try authorization(reference, now: now) else {
                return .outcome(.declined(.authorizationNotFound))
            }
            guard authorization.status == .challengeRequired else { return .outcome(authorization.outcome) }
            guard let trigger = authorization.trigger.flatMap(MockTrigger.init(name:)),
                let result = trigger.challengeResult(passed: passed)
            else {
                throw LedgerCorruption(sequence: authorization.sequence, detail: "a pending challenge without a challenge trigger")
            }
            let expiresAt = result == .approved ? now.addingTimeInterval(configuration.authorizationWindow.timeInterval) : nil
            try update(sequence: authorization.sequence, to: result, expiresAt: expiresAt, now: now)
            guard let completed = try self.authorization(reference, now: now) else {
                throw LedgerCorruption(sequence: authorization.sequence, detail: "the authorization vanished")
            }
            return .outcome(completed.outcome)
        }
    }
}
