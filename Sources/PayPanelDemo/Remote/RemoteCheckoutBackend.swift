import Foundation
import PayPanel
import Synchronization

/// The device against a running `paypanel serve`: exactly the call a notification extension
/// makes — `POST /v1/checkouts/{id}/pay` with the checkout's client secret, carrying the
/// Apple Pay token it sealed (or, for Pay in app, the typed card) — and nothing else on the
/// device's behalf.
///
/// The CLI plays the merchant too, with its secret key, for what a device cannot do:
/// - reading the intent back (`GET /v1/payment_intents/{id}`) so the screens and the transcript
///   show what the server recorded (a real merchant would learn it from its own backend);
/// - a 3-D Secure challenge: `/pay` cannot complete one (it answers the sheet `failure` with
///   `authentication_required` and leaves the intent in requires_action); the challenge's answer
///   goes to `POST /v1/payment_intents/{id}/challenge`, as the merchant's server would send it;
/// - leaving: `POST /v1/checkouts/{id}/cancel` closes the checkout and cancels its unpaid intent
///   (`close(after:)` closes a checkout left before any intent too).
public final class RemoteCheckoutBackend: DeviceBackend {
    public let connection: ServerConnection
    public let checkout: RemoteCheckout
    private let apiKey: String
    private let sealer: ApplePayTokenSealer
    private let merchantCertificate: Certificate
    private let random: any RandomByteSource
    /// Intents already shown, so a new one (the first pay, or one for another amount) is noted.
    private let seenIntents = Mutex<Set<String>>([])

    public let testModeNotice: String? = RemoteCheckoutBackend.notice
    public static let notice = "test mode: the device seals tokens with PayPanel's test identity; the server must run with --test-root to accept them"

    /// The pay call waits for the sheet's answer (≤ 25 s on the server), and a little more.
    static let payTimeout: Duration = .seconds(40)

    public init(
        connection: ServerConnection, checkout: RemoteCheckout, apiKey: String, clock: any WallClock,
        random: any RandomByteSource = SystemRandomBytes()
    ) {
        self.connection = connection
        self.checkout = checkout
        self.apiKey = apiKey
        self.random = random
        sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, random: random, clock: clock)
        merchantCertificate = ApplePayTestKeys.ecMerchant.certificate
    }

    public func perform(_ request: BackendRequest) async -> BackendResult {
        await ServerConnection.offThread { [self] in performBlocking(request) }
    }

    private func performBlocking(_ request: BackendRequest) -> BackendResult {
        var result = BackendResult()
        do {
            switch request {
            case .authorize(let authorization):
                try pay(authorization, into: &result)
            case .completeChallenge(let intentID, let answer):
                let answered = try connection.call(
                    "POST", "/v1/payment_intents/\(intentID)/challenge", json: .orderedObject([("passed", .bool(answer == .passed))]),
                    bearer: apiKey, timeout: Self.payTimeout)
                // 402 is the failed challenge: the intent says so, read below.
                guard answered.status == 200 || answered.status == 402 else { throw Self.refused(answered, doing: "answering the challenge") }
                result.details = try intent(intentID)
            case .cancel(let intentID):
                // The server closes a checkout only when no payment of it is under way, and an
                // intent waiting for its 3-D Secure answer is one: the merchant cancels that
                // intent first, as the payer abandoned the challenge by leaving.
                if try intent(intentID).intent.status == .requiresAction {
                    let canceled = try connection.call(
                        "POST", "/v1/payment_intents/\(intentID)/cancel", json: .orderedObject([("reason", "requested_by_customer")]),
                        bearer: apiKey)
                    guard canceled.status == 200 else { throw Self.refused(canceled, doing: "canceling intent \(intentID)") }
                }
                let closed = try connection.call("POST", "/v1/checkouts/\(checkout.id)/cancel", json: .orderedObject([]), bearer: apiKey)
                guard closed.status == 200 else { throw Self.refused(closed, doing: "canceling the checkout") }
                let details = try intent(intentID)
                result.details = details
                result.canceledIntents.append(details.intent)
            }
        } catch {
            result.problem = CheckoutProblem(error)
        }
        return result
    }

    /// The device's pay call, then the merchant's read of the intent it paid.
    private func pay(_ authorization: PaymentAuthorization, into result: inout BackendResult) throws {
        var body: [(String, JSONValue)] = [("amount", .number(authorization.amount.minorUnits))]
        switch authorization.method {
        case .applePay(let card):
            let details = TokenCardDetails(
                dpan: card.number, expiry: card.expiry, amount: authorization.amount, eci: card.eci, cardholderName: card.holderName)
            let sealed = try sealer.seal(details, to: merchantCertificate)
            let size = JSONWriter.string(sealed.paymentTokenJSON, style: .compact).utf8.count
            result.token = SealedTokenNote(version: sealed.token.version.rawValue, byteCount: size, transactionID: sealed.token.header.transactionId)
            body.append(("payment_token", sealed.paymentTokenJSON))
        case .card(let entry):
            var card: [(String, JSONValue)] = [("number", .string(entry.number.digits))]
            if let expiry = entry.expiry { card += [("exp_month", .number(expiry.month)), ("exp_year", .number(expiry.year))] }
            if let holder = entry.holderName { card.append(("holder_name", .string(holder))) }
            body.append(("card", .orderedObject(card)))
        }
        // A fresh key per tap: had the answer been lost, a retry with it would get the same answer.
        let key = "tap-" + Base62.random(length: 16, from: random)
        let answer = try connection.call(
            "POST", "/v1/checkouts/\(checkout.id)/pay", json: .orderedObject(body), bearer: checkout.clientSecret,
            idempotencyKey: key, timeout: Self.payTimeout)
        guard answer.status == 200, let intentID = answer.json["payment_intent"]?.stringValue else {
            throw Self.refused(answer, doing: "paying the checkout")
        }
        // The intent is read even when the token was refused: the server opened it for this pay,
        // and leaving must know it to cancel it.
        let details = try intent(intentID)
        if seenIntents.withLock({ $0.insert(intentID).inserted }) { result.createdIntent = details.intent }
        result.details = details
        if answer.json["sheet"] == "failure", let code = answer.json["error"]?["code"]?.stringValue, code.hasPrefix("token_") {
            throw Self.tokenRefused(code: code, message: answer.json["error"]?["message"]?.stringValue ?? "")
        }
    }

    /// Closes the server's checkout unless it was paid: `POST /v1/checkouts/{id}/cancel`, which
    /// also cancels an intent still waiting for a payment method. A checkout the flow's cancel
    /// already closed, or that the server marked paid, is only read.
    public func close(after ending: CheckoutEnding) async -> CheckoutClosing? {
        await ServerConnection.offThread { [self] in closeBlocking(after: ending) }
    }

    private func closeBlocking(after ending: CheckoutEnding) -> CheckoutClosing {
        var status = "open"
        do {
            let read = try connection.call("GET", "/v1/checkouts/\(checkout.id)", bearer: apiKey)
            guard read.status == 200, let current = read.json["status"]?.stringValue else { throw Self.refused(read, doing: "reading checkout \(checkout.id)") }
            status = current
            guard current == "open", ending.reason != .paid else {
                return CheckoutClosing(checkoutID: checkout.id, status: current, problem: nil)
            }
            if let intent = ending.intent, intent.status == .processing {
                // The server refuses to close a checkout whose payment is in flight; its worker
                // settles the payment, and the checkout with it.
                return CheckoutClosing(checkoutID: checkout.id, status: current, problem: CheckoutProblem(
                    code: "payment_in_progress",
                    message: "its payment (intent \(intent.id)) is still processing; the server settles it when the processor's answer is known"))
            }
            let closed = try connection.call("POST", "/v1/checkouts/\(checkout.id)/cancel", json: .orderedObject([]), bearer: apiKey)
            guard closed.status == 200, let after = closed.json["status"]?.stringValue else {
                throw Self.refused(closed, doing: "canceling checkout \(checkout.id)")
            }
            return CheckoutClosing(checkoutID: checkout.id, status: after, problem: nil)
        } catch {
            return CheckoutClosing(checkoutID: checkout.id, status: status, problem: CheckoutProblem(error))
        }
    }

    /// The merchant's read of an intent (secret key).
    private func intent(_ id: String) throws -> PaymentDetails {
        let answer = try connection.call("GET", "/v1/payment_intents/\(id)", bearer: apiKey)
        guard answer.status == 200 else { throw Self.refused(answer, doing: "reading intent \(id)") }
        return try APIIntentReader.details(answer.json)
    }

    /// A token the server would not take: said plainly when the reason is the server's trust.
    static func tokenRefused(code: String, message: String) -> RemoteCheckoutError {
        switch code {
        case "token_root_not_trusted", "token_merchant_key_unknown":
            RemoteCheckoutError(
                code: code,
                message: "the server refused the Apple Pay token (\(code)): it does not accept PayPanel's test tokens; restart it with 'paypanel serve --test-root' (test mode only), or use Pay in app")
        default:
            RemoteCheckoutError(code: code, message: "the server refused the Apple Pay token (\(code)): \(message)")
        }
    }

    static func refused(_ answer: ServerConnection.Answer, doing what: String) -> RemoteCheckoutError {
        RemoteCheckoutError(
            code: answer.errorCode ?? "server_refused",
            message: "the server refused \(what) (HTTP \(answer.status)\(answer.requestID.map { ", request \($0)" } ?? "")): \(answer.errorMessage)")
    }
}
