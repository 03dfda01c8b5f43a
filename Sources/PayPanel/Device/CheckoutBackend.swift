import Foundation

/// What the checkout flow asks the backend to do. The flow is pure; `CheckoutBackend`
/// performs these and hands back a `BackendResult`.
public enum BackendRequest: Sendable, Equatable {
    /// Pay: with the Apple Pay sheet's card (a token is sealed, then verified and decrypted by
    /// the backend) or with a card typed into the app.
    case authorize(PaymentAuthorization)
    /// The cardholder's answer to the 3-D Secure challenge of the intent's current attempt.
    case completeChallenge(intentID: String, result: ChallengeResult)
    /// Cancel an intent nobody paid (the payer left).
    case cancel(intentID: String)
}

/// One payment: how, for how much, and on which intent.
public struct PaymentAuthorization: Sendable, Equatable {
    /// The Apple Pay sheet's wallet card, or the app form's card.
    public enum Method: Sendable, Equatable {
        case applePay(WalletCard)
        case card(CardEntry)
    }

    public let method: Method
    public let amount: Amount
    public let intent: IntentPlan

    public var channel: PaymentChannel {
        if case .applePay = method { return .applePay }
        return .app
    }

    /// "Visa •••• 4242".
    public var cardLabel: String {
        switch method {
        case .applePay(let card): card.label
        case .card(let entry): entry.label
        }
    }
}

/// A card typed into the app: the number (memory only), expiry and holder when given.
public struct CardEntry: Sendable, Equatable {
    public let number: CardNumber
    public let expiry: CardExpiry?
    public let holderName: String?

    public init(number: CardNumber, expiry: CardExpiry?, holderName: String?) {
        self.number = number
        self.expiry = expiry
        self.holderName = holderName
    }

    /// "Visa •••• 4242".
    public var label: String { "\(number.network.map(WalletCard.displayName) ?? "Card") •••• \(number.last4)" }
}

/// Which intent a payment goes to: the checkout's open intent, or a new one (replacing an
/// open intent for another amount, which is canceled first).
public enum IntentPlan: Sendable, Equatable {
    case existing(intentID: String)
    case create(NewPaymentIntent, replacing: String?)
}

/// What the backend did for one request, read back from the database.
public struct BackendResult: Sendable {
    /// The intent created for this payment, if one was.
    public var createdIntent: PaymentIntent?
    /// Intents canceled on the way (replaced for another amount, or left unpaid).
    public var canceledIntents: [PaymentIntent] = []
    /// The intent with its attempts after the operation (nil when no intent was reached).
    public var details: PaymentDetails?
    /// The Apple Pay token the device sealed, described (never its contents).
    public var token: SealedTokenNote?
    /// Set when the backend refused (an error was thrown); `details` may still be set.
    public var problem: CheckoutProblem?

    public init() {}
}

/// What may be said about a sealed token: its version, size and transactionId.
public struct SealedTokenNote: Sendable, Equatable {
    /// `EC_v1` or `RSA_v1`.
    public let version: String
    /// The size of the PKPaymentToken JSON the device sent.
    public let byteCount: Int
    /// The token's header transactionId (hex), recorded with the attempt.
    public let transactionID: String
}

/// The device's side of the backend: seals an Apple Pay token for the chosen wallet card to
/// the merchant's certificate, exactly as Apple's servers would, then hands it to the real
/// `CheckoutService`, which verifies and decrypts it and authorizes through the processor.
/// A typed-in card goes to the same service as a card payment.
public final class CheckoutBackend: Sendable {
    public let service: CheckoutService
    public let sealer: ApplePayTokenSealer
    /// The merchant Payment Processing certificate tokens are encrypted to.
    public let merchantCertificate: Certificate
    public let decryptor: ApplePayTokenDecryptor

    public init(service: CheckoutService, sealer: ApplePayTokenSealer, merchantCertificate: Certificate, decryptor: ApplePayTokenDecryptor) {
        self.service = service
        self.sealer = sealer
        self.merchantCertificate = merchantCertificate
        self.decryptor = decryptor
    }

    /// The demo: tokens signed with PayPanel's test chain, encrypted to the built-in test
    /// merchant (`ApplePayTestKeys.merchantIdentifier`) and verified against the test root.
    public static func demo(service: CheckoutService, clock: any WallClock, random: any RandomByteSource = SystemRandomBytes()) -> CheckoutBackend {
        CheckoutBackend(
            service: service, sealer: ApplePayTokenSealer(signer: ApplePayTestKeys.signer, random: random, clock: clock),
            merchantCertificate: ApplePayTestKeys.ecMerchant.certificate,
            decryptor: ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier()))
    }

    /// Performs `request`. Never throws: a refusal is the result's `problem`.
    public func perform(_ request: BackendRequest) async -> BackendResult {
        var result = BackendResult()
        var intentID: String?
        do {
            switch request {
            case .authorize(let authorization):
                let id = try await prepareIntent(authorization.intent, into: &result)
                intentID = id
                try await authorize(authorization, intentID: id, into: &result)
            case .completeChallenge(let id, let answer):
                intentID = id
                _ = try await service.completeChallenge(id, result: answer)
            case .cancel(let id):
                intentID = id
                result.canceledIntents.append(try await service.cancel(id, reason: .requestedByCustomer).intent)
            }
        } catch {
            result.problem = CheckoutProblem(error)
        }
        if let intentID {
            do {
                result.details = try await service.details(intentID)
            } catch where result.problem == nil {
                result.problem = CheckoutProblem(error)
            } catch {}
        }
        return result
    }

    /// The intent to pay: the open one, or a new one (the open one for another amount is
    /// canceled first, so a checkout never leaves two payable intents for one order).
    private func prepareIntent(_ plan: IntentPlan, into result: inout BackendResult) async throws -> String {
        switch plan {
        case .existing(let intentID):
            return intentID
        case .create(let request, let replacing):
            if let replacing {
                result.canceledIntents.append(try await service.cancel(replacing, reason: .requestedByCustomer).intent)
            }
            let intent = try await service.createIntent(request)
            result.createdIntent = intent
            return intent.id
        }
    }

    private func authorize(_ authorization: PaymentAuthorization, intentID: String, into result: inout BackendResult) async throws {
        switch authorization.method {
        case .applePay(let card):
            let details = TokenCardDetails(
                dpan: card.number, expiry: card.expiry, amount: authorization.amount, eci: card.eci, cardholderName: card.holderName)
            let sealed = try sealer.seal(details, to: merchantCertificate)
            let json = Array(JSONWriter.string(sealed.paymentTokenJSON, style: .compact).utf8)
            result.token = SealedTokenNote(
                version: sealed.token.version.rawValue, byteCount: json.count, transactionID: sealed.token.header.transactionId)
            // The decline, challenge or unknown outcome is in the intent, read back below.
            _ = try await service.authorize(applePayToken: json, intentID: intentID, decryptor: decryptor, answersPaymentSheet: true)
        case .card(let entry):
            let method = PaymentMethodData.card(number: entry.number, expiry: entry.expiry, holderName: entry.holderName)
            _ = try await service.authorize(PaymentSubmission(intentID: intentID, method: method, source: .card))
        }
    }
}
