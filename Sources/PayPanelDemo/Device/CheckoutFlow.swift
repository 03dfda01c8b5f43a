import Foundation
import PayPanel

/// The device side of the checkout as a pure state machine of screens: banner → expanded
/// panel → Apple Pay sheet (or the app's card form) → authorizing → result → done.
///
/// Like `PaymentStateMachine`, it performs no I/O: every input returns a `CheckoutStep`
/// saying what the caller must do — nothing but redraw, show a refusal, run a backend request
/// (then hand its result to `receive(_:at:)`), or end. The terminal UI feeds it keys
/// (`handle(key:at:)`), scripts feed it line commands (`LineCommand`); both reach the same
/// actions, so a test of the flow is a sequence of actions and expected screens.
///
/// Intents: the first payment creates the checkout's intent for the selected amount (with the
/// panel's order reference); a retry after a decline is a new attempt on the same intent; a
/// payment for another amount cancels the open intent and creates a new one. Leaving cancels
/// an intent that is still unpaid (requires_payment_method or requires_action); an authorized,
/// captured or in-flight payment is left as it is.
public struct CheckoutFlow: Sendable {
    public let configuration: CheckoutFlowConfiguration
    public internal(set) var screen: CheckoutScreen = .banner
    /// The notification's panel: its text, amounts and selection (updated in place).
    package internal(set) var panel: NotificationPanelState
    /// The panel button with keyboard focus.
    package internal(set) var panelFocus: PanelButton = .buyWithApplePay
    public internal(set) var sheet: PaymentSheet?
    public internal(set) var form: CardForm?
    public internal(set) var challenge: ChallengePrompt?
    public internal(set) var authorizing: AuthorizingState?
    /// The last payment result read back from the backend.
    public internal(set) var report: PaymentReport?
    public internal(set) var problem: CheckoutProblem?
    /// The checkout's intent as last read back (nil until the first payment creates it).
    public internal(set) var intent: PaymentIntent?
    /// Set once the checkout is over.
    public internal(set) var ending: CheckoutEnding?
    /// The backend request in flight; inputs wait until its result is received.
    public internal(set) var pending: BackendRequest?
    /// Things that happened besides the screen change, oldest first (`takeNotes()`).
    var notes: [CheckoutNote] = []
    /// How the checkout ends once the unpaid intent is canceled.
    var closingReason: CheckoutEnding.Reason = .quit

    /// A checkout of `payload`'s panel, starting at its banner.
    public init(payload: PushPayload, configuration: CheckoutFlowConfiguration) throws(PanelError) {
        self.configuration = configuration
        panel = try NotificationPanelState(payload: payload)
    }

    /// Applies one payer action at `now`.
    public mutating func handle(_ action: CheckoutAction, at now: Date) -> CheckoutStep {
        if ending != nil { return .finished }
        if pending != nil {
            return .rejected("the payment is being processed: wait for the answer")
        }
        if action == .quit { return quit() }
        switch screen {
        case .banner: return onBanner(action)
        case .panel: return onPanel(action, at: now)
        case .sheet: return onSheet(action, at: now)
        case .appForm: return onForm(action, at: now)
        case .challenge: return onChallenge(action, at: now)
        case .approved: return action == .done ? finish(.paid) : refuse(action)
        case .unresolved, .failed: return action == .done ? leave(.failed) : refuse(action)
        case .authorizing, .closing, .finished: return refuse(action)
        }
    }

    /// A panel update (a second notification for the same order) while the checkout is open.
    /// Applied whatever the screen; an open sheet keeps its request (Apple Pay's is fixed once
    /// shown) and the new amounts count from the next payment.
    package mutating func applyPanelUpdate(_ payload: PushPayload) -> PanelUpdateOutcome {
        let outcome = panel.apply(payload)
        switch outcome {
        case .applied(let update): notes.append(.panelUpdated(update))
        case .notForThisPanel, .rejected: break
        }
        return outcome
    }

    /// The notes gathered since the last call (intents created and canceled, declines, panel
    /// updates, the sealed token), oldest first.
    package mutating func takeNotes() -> [CheckoutNote] {
        defer { notes.removeAll() }
        return notes
    }

    // MARK: - Screens

    private mutating func onBanner(_ action: CheckoutAction) -> CheckoutStep {
        switch action {
        case .expand:
            screen = .panel
            return .updated
        case .back:
            // Swiping the banner away: the payer leaves without opening the panel.
            return quit()
        default:
            return refuse(action)
        }
    }

    private mutating func onPanel(_ action: CheckoutAction, at now: Date) -> CheckoutStep {
        switch action {
        case .selectSegment(let segment):
            do {
                try panel.selector.select(segment: segment)
            } catch {
                return .rejected(error.message)
            }
            return .updated
        case .select(let text):
            // A number from 1 to the segment count is a segment; anything else an amount.
            if let segment = Int(text), (1...panel.selector.options.count).contains(segment) {
                try? panel.selector.select(segment: segment)
                return .updated
            }
            do {
                try panel.selector.select(amountText: text)
            } catch {
                return .rejected("\(JSONWriter.quoted(text)) is neither a segment (1 to \(panel.selector.options.count)) nor an amount of the panel (\(panel.selector.optionList))")
            }
            return .updated
        case .moveAmount(let offset):
            panel.selector.move(by: offset)
            return .updated
        case .buyWithApplePay:
            return openSheet(at: now)
        case .payInApp:
            return openForm(at: now)
        case .back:
            screen = .banner
            return .updated
        default:
            return refuse(action)
        }
    }

    /// Builds and validates the payment request for the selected amount and shows the sheet.
    private mutating func openSheet(at now: Date) -> CheckoutStep {
        if let refusal = expiryRefusal(at: now) { return refusal }
        let merchant = panel.panel.merchantIdentifier
        guard merchant == configuration.applePayMerchantIdentifier else {
            return .rejected("Apple Pay cannot pay \(merchant) on this device: tokens can only be sealed for the demo merchant \(configuration.applePayMerchantIdentifier); use Pay in app")
        }
        let request = PaymentRequest(panel: panel.panel, selection: panel.selector)
        let report = PaymentRequestRules.check(request)
        guard report.isValid else {
            return .rejected("the payment request is invalid: " + report.errors.map(\.description).joined(separator: "; "))
        }
        let cards = configuration.wallet.cards(accepting: request.supportedNetworks)
        sheet = PaymentSheet(
            request: request, warnings: report.warnings.map(\.description), cards: cards, selectedIndex: 0,
            focus: .confirm, failure: nil)
        screen = .sheet
        return .updated
    }

    private mutating func openForm(at now: Date) -> CheckoutStep {
        if let refusal = expiryRefusal(at: now) { return refusal }
        form = CardForm(amount: panel.selector.selected, walletCards: configuration.wallet.cards(accepting: panel.panel.supportedNetworks))
        screen = .appForm
        return .updated
    }

    private func expiryRefusal(at now: Date) -> CheckoutStep? {
        guard panel.isExpired(at: now), let expiry = panel.panel.expiresAt else { return nil }
        return .rejected("this offer expired at \(Timestamp.format(expiry)); payment is no longer offered")
    }

    private mutating func onSheet(_ action: CheckoutAction, at now: Date) -> CheckoutStep {
        guard var sheet else { return refuse(action) }
        switch action {
        case .chooseCard(let number):
            guard sheet.cards.indices.contains(number - 1) else {
                return .rejected(Self.noSuchCard(number, count: sheet.cards.count))
            }
            sheet.selectedIndex = number - 1
            sheet.focus = .confirm
            self.sheet = sheet
            return .updated
        case .confirm:
            guard let card = sheet.selectedCard else {
                return .rejected("the wallet has no card for \(sheet.request.supportedNetworks.map(\.rawValue).joined(separator: ", ")): go back and use Pay in app")
            }
            return startPayment(.applePay(card), amount: sheet.amount, at: now)
        case .back:
            // The sheet is dismissed without paying; the intent, if any, stays open for a retry.
            self.sheet = nil
            screen = .panel
            return .updated
        default:
            return refuse(action)
        }
    }

    private mutating func onChallenge(_ action: CheckoutAction, at now: Date) -> CheckoutStep {
        guard let challenge else { return refuse(action) }
        let answer: ChallengeResult
        switch action {
        case .passChallenge: answer = .passed
        case .failChallenge: answer = .failed
        case .back: answer = .abandoned
        default: return refuse(action)
        }
        authorizing = AuthorizingState(
            channel: challenge.channel, step: .challenge, cardLabel: challenge.cardLabel, amount: challenge.amount, startedAt: now)
        return send(.completeChallenge(intentID: challenge.intentID, result: answer), screen: .authorizing)
    }

    /// Opens an attempt: on the open intent when it waits for a payment method for this
    /// amount, else on a new intent.
    mutating func startPayment(_ method: PaymentAuthorization.Method, amount: Amount, at now: Date) -> CheckoutStep {
        let plan: IntentPlan
        if let intent, intent.status == .requiresPaymentMethod, intent.amount == amount {
            plan = .existing(intentID: intent.id)
        } else {
            let replacing = intent.flatMap { $0.status == .requiresPaymentMethod ? $0.id : nil }
            do {
                plan = .create(
                    try NewPaymentIntent(amount: amount, captureMethod: configuration.captureMethod, orderReference: panel.panel.orderReference),
                    replacing: replacing)
            } catch {
                return .rejected("cannot create the payment: \(error.message)")
            }
        }
        let authorization = PaymentAuthorization(method: method, amount: amount, intent: plan)
        authorizing = AuthorizingState(
            channel: authorization.channel, step: .payment, cardLabel: authorization.cardLabel, amount: amount, startedAt: now)
        return send(.authorize(authorization), screen: .authorizing)
    }

    mutating func send(_ request: BackendRequest, screen next: CheckoutScreen) -> CheckoutStep {
        pending = request
        screen = next
        return .backend(request)
    }

    // MARK: - Leaving

    /// Leaves from wherever the checkout is: a paid checkout ends paid, one on a failure
    /// screen failed, any other quit.
    mutating func quit() -> CheckoutStep {
        switch screen {
        case .approved: finish(.paid)
        case .unresolved, .failed: leave(.failed)
        default: leave(.quit)
        }
    }

    /// Ends with `reason`, canceling first an intent nobody paid (one waiting for a payment
    /// method or for its challenge); an intent in flight or authorized is left as it is.
    mutating func leave(_ reason: CheckoutEnding.Reason) -> CheckoutStep {
        if let intent, intent.status == .requiresPaymentMethod || intent.status == .requiresAction {
            closingReason = reason
            return send(.cancel(intentID: intent.id), screen: .closing)
        }
        return finish(reason)
    }

    mutating func finish(_ reason: CheckoutEnding.Reason, cancelProblem: CheckoutProblem? = nil) -> CheckoutStep {
        ending = CheckoutEnding(reason: reason, intent: intent, cancelProblem: cancelProblem, nextSteps: configuration.nextSteps)
        screen = .finished
        return .finished
    }

    func refuse(_ action: CheckoutAction) -> CheckoutStep {
        .rejected("that does not work on \(screen.name)")
    }

    static func noSuchCard(_ number: Int, count: Int) -> String {
        count == 0 ? "the wallet has no card for this merchant's networks" : "there is no card \(number): choose 1 to \(count)"
    }
}
