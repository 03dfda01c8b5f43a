import Foundation
import PayPanel

// What the backend's answers do to the screens.
extension CheckoutFlow {
    /// Takes the result of the pending backend request and moves to the screen it leads to:
    /// approved, the 3-D Secure challenge, back to the sheet or form with the payer-safe
    /// decline message (a retry is a new attempt), the unknown-outcome screen, or the error
    /// screen.
    public mutating func receive(_ result: BackendResult, at now: Date) -> CheckoutStep {
        guard let request = pending else { return .updated }
        pending = nil
        for intent in result.canceledIntents { notes.append(.intentCanceled(intent)) }
        if let created = result.createdIntent { notes.append(.intentCreated(created)) }
        if let token = result.token { notes.append(.tokenSealed(token)) }
        if let details = result.details { intent = details.intent }

        switch request {
        case .cancel:
            return finish(closingReason, cancelProblem: result.problem)
        case .authorize(let authorization):
            return show(result, channel: authorization.channel, cardLabel: authorization.cardLabel, at: now)
        case .completeChallenge:
            let channel = challenge?.channel ?? .applePay
            let label = challenge?.cardLabel ?? authorizing?.cardLabel ?? "card"
            challenge = nil
            return show(result, channel: channel, cardLabel: label, at: now)
        }
    }

    private mutating func show(_ result: BackendResult, channel: PaymentChannel, cardLabel: String, at now: Date) -> CheckoutStep {
        authorizing = nil
        if let problem = result.problem {
            self.problem = problem
            screen = .failed
            return .updated
        }
        guard let details = result.details else {
            problem = CheckoutProblem(code: "intent_unreadable", message: "the backend gave no intent to show")
            screen = .failed
            return .updated
        }
        let report = PaymentReport(details: details, channel: channel, cardLabel: cardLabel)
        self.report = report
        switch report.outcome {
        case .approved:
            screen = .approved
        case .challenge:
            challenge = ChallengePrompt(channel: channel, intentID: report.intent.id, cardLabel: cardLabel, amount: report.intent.amount)
            screen = .challenge
        case .declined:
            let notice = report.failureNotice
            notes.append(.declined(report))
            switch channel {
            case .applePay:
                sheet?.failure = notice
                if let index = sheet?.selectedIndex { sheet?.focus = .card(index) }
                screen = sheet == nil ? .panel : .sheet
            case .app:
                form?.failure = notice
                form?.numberText = ""
                form?.focus = .autofill
                screen = form == nil ? .panel : .appForm
            }
        case .outcomeUnknown, .merchantAction, .ended:
            screen = .unresolved
        }
        return .updated
    }
}
