import Foundation
import PayPanel

/// The device's side of the backend: seals an Apple Pay token for the chosen wallet card to
/// the merchant's certificate, exactly as Apple's servers would, then hands it to the real
/// `PaymentService`, which verifies and decrypts it and authorizes through the processor.
/// A typed-in card goes to the same service as a card payment.
public final class CheckoutBackend: Sendable {
    public let service: PaymentService
    public let sealer: ApplePayTokenSealer
    /// The merchant Payment Processing certificate tokens are encrypted to.
    public let merchantCertificate: Certificate
    public let decryptor: ApplePayTokenDecryptor
    /// What the front ends must show while the checkout runs when the backend is in test mode
    /// (it trusts the demo's test root, which a production backend never would), else nil.
    public let testModeNotice: String?

    /// The demo's notice: its backend trusts PayPanel's test root, whose private key is public.
    public static let testRootNotice = "test mode: tokens are signed by PayPanel's test root"

    /// A backend on `service` that seals tokens with `sealer` to `merchantCertificate` and has
    /// `decryptor` (the merchant's keys and the trusted root) check them. `testModeNotice` is what
    /// the screens must show when that trust is test mode's.
    public init(
        service: PaymentService, sealer: ApplePayTokenSealer, merchantCertificate: Certificate, decryptor: ApplePayTokenDecryptor,
        testModeNotice: String? = nil
    ) {
        self.service = service
        self.sealer = sealer
        self.merchantCertificate = merchantCertificate
        self.decryptor = decryptor
        self.testModeNotice = testModeNotice
    }

    /// The demo, in test mode: tokens signed with PayPanel's test chain, encrypted to the
    /// built-in test merchant (`ApplePayTestKeys.merchantIdentifier`) and verified against the
    /// test root, which this backend turns on for itself and announces (`testRootNotice`).
    public static func demo(service: PaymentService, clock: any WallClock, random: any RandomByteSource = SystemRandomBytes()) -> CheckoutBackend {
        CheckoutBackend(
            service: service, sealer: ApplePayTokenSealer(signer: ApplePayTestKeys.signer, random: random, clock: clock),
            merchantCertificate: ApplePayTestKeys.ecMerchant.certificate,
            decryptor: ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier()), testModeNotice: testRootNotice)
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
