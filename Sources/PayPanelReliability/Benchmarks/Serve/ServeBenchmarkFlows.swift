import Foundation
import PayPanel
import PayPanelDemo

/// The payment `bench serve` times, twice: over HTTP against `paypanel serve`, and called
/// in-process on `CheckoutDesk` and `PaymentService`. Both pay the seed checkout's 10.00 USD
/// option (manual capture) with an Apple Pay token sealed by the test identity, then capture
/// it in full. Anything but a captured payment counts as an error.
enum ServeBenchmarkFlow {
    static let amount: Int64 = 1000
    static let createBody = Array(#"{"capture_method":"manual"}"#.utf8)
    static let captureBody = Array("{}".utf8)

    /// `count` distinct tokens (each transactionId is used once: replays are refused) for
    /// 10.00 USD, as the compact PKPaymentToken JSON the device sends. Sealed just before the
    /// run that uses them: the server accepts a signing time up to 5 minutes old.
    static func sealTokens(_ count: Int) throws -> [[UInt8]] {
        let sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, clock: SystemClock())
        let details = TokenCardDetails(
            dpan: try CardNumber("4242424242424242"), expiry: try CardExpiry(month: 12, year: 2030),
            amount: Amount(minorUnits: amount, currency: try Currency(code: "USD")), eci: "05")
        return try (0..<count).map { _ in
            Array(JSONWriter.string(try sealer.seal(details, to: ApplePayTestKeys.ecMerchant.certificate).paymentTokenJSON).utf8)
        }
    }

    // MARK: - Over HTTP

    /// create checkout (secret key) → pay with the token (the checkout's client secret) →
    /// capture (secret key), on one keep-alive connection; nil on success, else what went wrong.
    static func overHTTP(_ client: BenchmarkHTTPClient, apiKey: String, token: [UInt8]) throws(BenchmarkHTTPError) -> String? {
        let created = try client.request("POST", "/v1/checkouts", bearer: apiKey, body: createBody)
        guard created.status == 200, let checkout = parse(created.body),
            let id = checkout["id"]?.stringValue, let secret = checkout["client_secret"]?.stringValue
        else { return unexpected("create checkout", created) }
        let payBody = Array(#"{"amount":\#(amount),"payment_token":"#.utf8) + token + [UInt8(ascii: "}")]
        let paid = try client.request("POST", "/v1/checkouts/\(id)/pay", bearer: secret, body: payBody)
        guard paid.status == 200, let payment = parse(paid.body), payment["sheet"]?.stringValue == "success",
            let intentID = payment["payment_intent"]?.stringValue
        else { return unexpected("pay", paid) }
        let captured = try client.request("POST", "/v1/payment_intents/\(intentID)/capture", bearer: apiKey, body: captureBody)
        guard captured.status == 200, parse(captured.body)?["status"]?.stringValue == "succeeded" else {
            return unexpected("capture", captured)
        }
        return nil
    }

    private static func parse(_ body: [UInt8]) -> JSONValue? {
        try? JSONParser().parse(body)
    }

    /// The step and the status, with the error code when the body has one (never the body
    /// itself: it could hold a client secret).
    private static func unexpected(_ step: String, _ response: BenchmarkHTTPResponse) -> String {
        let code = parse(response.body)?["error"]?["code"]?.stringValue ?? "no error code"
        return "\(step) answered HTTP \(response.status) (\(code))"
    }

    // MARK: - In-process

    /// The same three steps on the desk and the service.
    static func inProcess(desk: CheckoutDesk, service: PaymentService, createJSON: JSONValue, token: [UInt8], decryptor: ApplePayTokenDecryptor) async -> String? {
        do {
            let created = try await desk.create(json: createJSON)
            let payment = try await desk.pay(created.checkout.id, amount: amount, method: .applePayToken(token, decryptor: decryptor))
            guard payment.sheet == .success else { return "pay answered \(payment.sheet.rawValue) (\(payment.error?.code ?? "no error code"))" }
            let captured = try await service.capture(payment.paymentIntentID)
            guard captured.intent.status == .succeeded else { return "capture left the intent \(captured.intent.status.rawValue)" }
            return nil
        } catch let error as any PayPanelError {
            return "\(error.code): \(error.message)"
        } catch {
            return "\(error)"
        }
    }
}
