import PayPanel

/// Every answer a chaos-soak client was given, checked against the money at the processor once
/// everything settled: an answer that says money was taken when the processor keeps none, or
/// that no money was taken when the processor keeps some, is a contradiction. The both-ledger
/// audit (`PaymentsAudit`) proves serve's database agrees with the processor; this proves the
/// *answers* did too, which the database cannot show: an answer is gone once it is sent.
///
/// What each answer asserts (anything else — no answer, a 5xx, a 409, a 200 `processing` —
/// asserts nothing, since its outcome was unknown when it was given):
///
/// - confirm 200 `requires_capture` or `succeeded`: the processor approved that attempt's
///   authorization (for `succeeded`, also captured `amount_captured` of it), and still keeps the
///   money — unless the same client later sent a cancel or a refund for the intent (answered or
///   not: a request whose answer was lost may have gone through);
/// - device pay 200 `success`: the pay's attempt keeps money at the processor (an authorization
///   held, or a capture not refunded), with the same exception;
/// - confirm 402 (a decline, or not processed) and device pay 200 `failure`: the attempt keeps
///   nothing (never approved, or voided, or refunded in full);
/// - capture 200 `succeeded`: the processor captured `amount_captured` for the intent;
/// - cancel 200 `canceled`: no attempt of the intent keeps money;
/// - refund 200 `succeeded`: the processor approved that refund, for that amount; 200 `failed`:
///   it approved none.
public struct ChaosAnswerAudit: Sendable {
    public let answers: [ChaosAnswer]
    /// The processor's ledger in serve's references (`SoakLedger.translated`): each effect's
    /// `reference` is an attempt id, a refund's `refundReference` serve's refund id.
    package let effects: [ProcessorEffect]
    /// serve's attempts of each intent (from its database): what a capture or cancel is about.
    public let attemptsOfIntent: [String: [String]]

    package init(answers: [ChaosAnswer], effects: [ProcessorEffect], attemptsOfIntent: [String: [String]]) {
        self.answers = answers
        self.effects = effects
        self.attemptsOfIntent = attemptsOfIntent
    }

    /// The money of one attempt at the processor.
    struct Money {
        var authorized = false
        var voided = false
        var captured: Int64 = 0
        /// Approved and pending refunds: money on its way back counts as given back.
        var refunded: Int64 = 0

        /// An authorization still held, or a capture not refunded in full.
        var keepsMoney: Bool { (authorized && !voided && captured == 0) || captured > refunded }
    }

    /// How many answers assert something about the money (and were checked).
    public var audited: Int { answers.filter(asserts).count }

    /// Every contradiction, one sentence each; empty when every answer agrees with the money.
    public func contradictions() -> [String] {
        var money: [String: Money] = [:]
        var refunds: [String: [ProcessorEffect]] = [:]
        for effect in effects {
            switch (effect.operation, effect.status) {
            case (.authorize, .approved): money[effect.reference, default: Money()].authorized = true
            case (.void, .approved): money[effect.reference, default: Money()].voided = true
            case (.capture, .approved): money[effect.reference, default: Money()].captured += effect.amount.minorUnits
            case (.refund, .approved), (.refund, .pending):
                money[effect.reference, default: Money()].refunded += effect.amount.minorUnits
                if let reference = effect.refundReference { refunds[reference, default: []].append(effect) }
            default: break
            }
        }
        // Later cancels or refunds a client sent for an intent (any answer, or none), by step.
        var releasingSteps: [String: [(client: Int, step: Int)]] = [:]
        for answer in answers where answer.call == .cancel || answer.call == .refund {
            if let intent = answer.intentID { releasingSteps[intent, default: []].append((answer.client, answer.step)) }
        }
        func releasedLater(_ answer: ChaosAnswer) -> Bool {
            guard let intent = answer.intentID else { return false }
            return releasingSteps[intent, default: []].contains { $0.client == answer.client && $0.step > answer.step }
        }

        var found: [String] = []
        for answer in answers where asserts(answer) {
            let attempt = answer.attemptID.map { money[$0] ?? Money() }
            let intentAttempts = answer.intentID.flatMap { attemptsOfIntent[$0] } ?? []
            switch (answer.call, answer.httpStatus, answer.status) {
            case (.confirm, 200, "requires_capture"?), (.confirm, 200, "succeeded"?):
                guard let attempt else { continue }
                if !attempt.authorized {
                    found.append("\(answer.label), but the processor approved no authorization for that attempt")
                } else if answer.status == "succeeded", attempt.captured != (answer.amount ?? attempt.captured) {
                    found.append("\(answer.label) with \(answer.amount ?? 0) captured, but the processor captured \(attempt.captured) of that attempt")
                } else if !attempt.keepsMoney, !releasedLater(answer) {
                    found.append("\(answer.label), but the processor keeps no money of that attempt (voided or refunded) and the client never canceled or refunded it")
                }
            case (.pay, 200, "success"?):
                let keeps = attempt.map(\.keepsMoney) ?? intentAttempts.contains { money[$0]?.keepsMoney == true }
                if !keeps, !releasedLater(answer) {
                    found.append("\(answer.label), but the processor keeps no money for it and the client never canceled or refunded it")
                }
            case (.confirm, 402, _), (.pay, 200, "failure"?):
                guard let attempt, attempt.keepsMoney else { continue }
                found.append("\(answer.label), but the processor keeps money of that attempt (\(attempt.captured > 0 ? "captured \(attempt.captured), refunded \(attempt.refunded)" : "an authorization still held"))")
            case (.capture, 200, "succeeded"?):
                let captured = intentAttempts.reduce(Int64(0)) { $0 + (money[$1]?.captured ?? 0) }
                if captured != answer.amount {
                    found.append("\(answer.label) with \(answer.amount ?? 0) captured, but the processor captured \(captured) for the intent")
                }
            case (.cancel, 200, "canceled"?):
                if let kept = intentAttempts.first(where: { money[$0]?.keepsMoney == true }) {
                    found.append("\(answer.label), but the processor keeps money of attempt \(kept)")
                }
            case (.refund, 200, "succeeded"?):
                let approved = (answer.refundID.flatMap { refunds[$0] } ?? []).filter { $0.status == .approved }
                if approved.count != 1 || approved.first?.amount.minorUnits != answer.amount {
                    found.append("\(answer.label) for \(answer.amount ?? 0), but the processor approved \(approved.map { String($0.amount.minorUnits) }) for that refund")
                }
            case (.refund, 200, "failed"?):
                if let approved = (answer.refundID.flatMap { refunds[$0] } ?? []).first(where: { $0.status == .approved }) {
                    found.append("\(answer.label), but the processor approved it (\(approved.amount.minorUnits))")
                }
            default:
                continue
            }
        }
        return found
    }

    /// Whether `answer` says something about the money (see the type's list).
    func asserts(_ answer: ChaosAnswer) -> Bool {
        switch (answer.call, answer.httpStatus, answer.status) {
        case (.confirm, 200, "requires_capture"?), (.confirm, 200, "succeeded"?): answer.attemptID != nil
        case (.confirm, 402, _), (.pay, 200, "failure"?): answer.attemptID != nil
        case (.pay, 200, "success"?): answer.attemptID != nil || answer.intentID != nil
        case (.capture, 200, "succeeded"?), (.cancel, 200, "canceled"?): answer.intentID != nil
        case (.refund, 200, "succeeded"?), (.refund, 200, "failed"?): answer.refundID != nil
        default: false
        }
    }
}
