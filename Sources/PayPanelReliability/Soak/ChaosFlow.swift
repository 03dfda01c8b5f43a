/// The flows a chaos-soak client loops over: the processor crash soak's merchant flows through
/// serve's API (`ProcessorSoakFlow`: create → confirm → capture or cancel → refunds, with the
/// network-fault triggers and a decline), and the device's flows through a checkout.
enum ChaosFlow: Sendable {
    case api(ProcessorSoakFlow)
    case device(ChaosDeviceFlow)

    /// Every flow, in a fixed order: the seed picks among them.
    static let all: [ChaosFlow] = ProcessorSoakFlow.allCases.map(ChaosFlow.api) + ChaosDeviceFlow.allCases.map(ChaosFlow.device)

    var name: String {
        switch self {
        case .api(let flow): flow.rawValue
        case .device(let flow): flow.rawValue
        }
    }
}

/// A device paying a checkout (`POST /v1/checkouts`, then the device's `POST
/// /v1/checkouts/{id}/pay` with a card typed in the app), answered `sheet: success` or
/// `failure` within the sheet's budget; after a failure the device pays again with the next
/// card, and after a success the merchant captures, cancels or refunds through the API.
enum ChaosDeviceFlow: String, Sendable, CaseIterable {
    /// Automatic capture, then a partial refund by the merchant.
    case automatic = "device-automatic"
    /// Manual capture, captured by the merchant.
    case manualCapture = "device-manual-capture"
    /// Manual capture, canceled (voided) by the merchant.
    case manualCancel = "device-manual-cancel"
    /// SLOW_2S against serve's 1 s processor timeout: unknown, so the sheet is told failure and
    /// the late approval must be reversed; then another card.
    case slowThenPay = "device-slow-then-pay"
    /// TIMEOUT_THEN_APPROVED: no answer, approved meanwhile (reversed); then another card.
    case heldThenPay = "device-held-then-pay"
    /// DROP_AFTER: processed, the answer dropped (reversed); then another card.
    case droppedThenPay = "device-dropped-then-pay"
    /// A declined card, then a good one.
    case declineThenPay = "device-decline-then-pay"

    var captureMethod: String {
        switch self {
        case .manualCapture, .manualCancel, .heldThenPay: "manual"
        default: "automatic"
        }
    }

    /// The cards the device tries in turn until the sheet says success: number and holder name
    /// (a trigger of the mock processor, or none).
    var pays: [(number: String, holder: String?)] {
        let visa = "4242424242424242"
        switch self {
        case .automatic, .manualCapture: return [(visa, nil)]
        case .manualCancel: return [("5555555555554444", nil)]
        case .slowThenPay: return [(visa, "SLOW_2S"), (visa, nil)]
        case .heldThenPay: return [(visa, "TIMEOUT_THEN_APPROVED"), (visa, nil)]
        case .droppedThenPay: return [(visa, "DROP_AFTER"), (visa, nil)]
        case .declineThenPay: return [("4000000000009995", nil), ("5555555555554444", nil)]
        }
    }

    /// What the merchant does after the sheet said success (each only when the intent is in
    /// the state it needs). The checkout pays 10.00 USD (1000 minor units).
    var afterSuccess: [ProcessorSoakFlow.Step] {
        switch self {
        case .automatic: [.refund(upTo: 400)]
        case .manualCapture: [.capture(minorUnits: nil)]
        case .manualCancel: [.void]
        case .slowThenPay, .droppedThenPay, .declineThenPay: [.refund(upTo: nil)]
        case .heldThenPay: [.capture(minorUnits: 700), .refund(upTo: 200)]
        }
    }
}
