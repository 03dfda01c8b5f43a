import Foundation
import PayPanel
import PayPanelDemo

/// What a fuzz campaign feeds: payment requests, push payloads or Apple Pay tokens.
public enum FuzzKind: String, Sendable, CaseIterable {
    case request
    case payload
    case token
}

/// How the library answered one input: accepted, or rejected with reasons. A rejection must
/// be reasons a person can read — one line each, with no card data.
public struct FuzzVerdict: Sendable, Equatable {
    public let accepted: Bool
    /// Every message the library produced: errors, warnings, the thrown error's message.
    public let messages: [String]
}

/// One thing the library under fuzzing reads, with its seed documents and the check of every
/// answer. The library code runs in-process: a crash is a crash of the fuzzer.
public final class FuzzTarget {
    public let kind: FuzzKind
    /// Well-formed documents the mutations start from.
    public private(set) var seeds: [JSONValue]
    /// Secrets that must never appear in a message (the token's cryptogram and DPAN).
    public let detector: CardDataDetector
    private let answer: ([UInt8]) -> FuzzVerdict
    /// Token plaintexts are mutated and sealed anew half the time (see `input(for:)`).
    private let tokenSealing: TokenFuzzSealing?

    private init(kind: FuzzKind, seeds: [JSONValue], secrets: [String], tokenSealing: TokenFuzzSealing? = nil, answer: @escaping ([UInt8]) -> FuzzVerdict) {
        self.kind = kind
        self.seeds = seeds
        self.detector = CardDataDetector(secrets: secrets)
        self.tokenSealing = tokenSealing
        self.answer = answer
    }

    /// The target of `kind` with its built-in seeds (the seed panel's request and push, tokens
    /// sealed for a test card at `time`).
    public static func make(_ kind: FuzzKind, at time: Date = Date(timeIntervalSince1970: 1_795_939_200)) throws -> FuzzTarget {
        switch kind {
        case .request:
            let panel = PanelConfig.seed
            let request = PaymentRequest(panel: panel, selection: try panel.makeSelector())
            return FuzzTarget(kind: .request, seeds: [request.json], secrets: []) { bytes in
                let result = PaymentRequestValidator.validate(data: bytes)
                let messages = (result.report.errors + result.report.warnings).map(\.description)
                return FuzzVerdict(accepted: result.request != nil, messages: messages)
            }
        case .payload:
            let builder = PaymentActionPayloadBuilder(panel: .seed, title: "Coffee", subtitle: "Pick an amount", body: "Pay from here", orderReference: "order-1")
            var withMedia = builder
            withMedia.media = MediaPayload(subtitle: "Fresh", imageURL: "https://example.com/offer.png")
            let seeds = [JSONValue.object(try builder.build().document), .object(try withMedia.build().document)]
            return FuzzTarget(kind: .payload, seeds: seeds, secrets: []) { bytes in
                let result = PushPayloadReader.read(data: bytes)
                let messages = (result.report.errors + result.report.warnings).map(\.description)
                return FuzzVerdict(accepted: result.payload != nil && result.report.isValid, messages: messages)
            }
        case .token:
            let sealing = try TokenFuzzSealing(at: time)
            let decryptor = ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier())
            return FuzzTarget(kind: .token, seeds: sealing.tokens, secrets: sealing.secrets, tokenSealing: sealing) { bytes in
                do {
                    _ = try decryptor.decrypt(bytes, at: time)
                    return FuzzVerdict(accepted: true, messages: [])
                } catch {
                    return FuzzVerdict(accepted: false, messages: [(error as? any PayPanelError)?.message ?? String(describing: error)])
                }
            }
        }
    }

    /// Adds documents (fixture files) to the seeds.
    public func addSeeds(_ documents: [JSONValue]) {
        seeds += documents
    }

    /// The next input: a mutant of a seed. For tokens, half the mutants are of the decrypted
    /// plaintext, sealed and signed properly, so the mutation reaches the plaintext reader
    /// behind the signature and the decryption.
    public func input(using mutator: inout JSONMutator) -> JSONMutator.Mutant {
        if let tokenSealing, mutator.below(2) == 0 {
            let index = mutator.below(tokenSealing.plaintexts.count)
            let mutant = mutator.mutate(tokenSealing.plaintexts[index])
            return JSONMutator.Mutant(bytes: tokenSealing.seal(mutant.bytes, like: index), mutations: mutant.mutations)
        }
        return mutator.mutate(seeds[mutator.below(seeds.count)])
    }

    /// Runs `input` and returns what is wrong with the answer (empty: a fine answer).
    public func problems(with input: [UInt8]) -> (verdict: FuzzVerdict, problems: [String]) {
        let verdict = answer(input)
        var problems: [String] = []
        if !verdict.accepted && verdict.messages.isEmpty { problems.append("rejected without a reason") }
        for message in verdict.messages {
            if message.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("an empty message") }
            if message.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\u{2028}" }) {
                problems.append("a message of several lines: \(Self.excerpt(message))")
            }
            if message.utf8.count > Self.maximumMessageBytes {
                problems.append("a message of \(message.utf8.count) bytes (more than \(Self.maximumMessageBytes)): \(Self.excerpt(message))")
            }
            problems += detector.findings(in: message).map { "card data in a message: \($0)" }
        }
        return (verdict, problems)
    }

    /// The longest message a person should have to read.
    public static let maximumMessageBytes = 1024

    static func excerpt(_ text: String) -> String {
        let cut = String(text.unicodeScalars.prefix(160).map(Character.init))
        return JSONWriter.quoted(cut.count < text.count ? cut + "…" : cut)
    }
}

/// Test cards sealed into tokens, kept with their plaintexts so mutated plaintexts can be
/// sealed the same way.
final class TokenFuzzSealing {
    let tokens: [JSONValue]
    let plaintexts: [JSONValue]
    let secrets: [String]
    private let sealer: ApplePayTokenSealer
    private let versions: [PaymentTokenVersion] = [.ecV1, .rsaV1]

    init(at time: Date) throws {
        sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, random: SeededRandomBytes(seed: "fuzz"), clock: ManualClock(time))
        let details = TokenCardDetails(
            dpan: try CardNumber("4242424242424242"), expiry: try CardExpiry(month: 12, year: 2030),
            amount: Amount(minorUnits: 1000, currency: try Currency(code: "USD")), eci: "05", cardholderName: "Jane Appleseed")
        let cryptogram = "AgAAAAAAAIR8CQrXSohbQAANAAAAAA=="
        let plaintext = details.plaintextJSON(cryptogram: cryptogram)
        plaintexts = [plaintext, plaintext]
        secrets = [cryptogram, "4242424242424242"]
        var tokens: [JSONValue] = []
        for (index, version) in versions.enumerated() {
            let merchant = version == .ecV1 ? ApplePayTestKeys.ecMerchant : ApplePayTestKeys.rsaMerchant
            let token = try sealer.seal(plaintext: Array(JSONWriter.string(plaintexts[index]).utf8), to: merchant.certificate, version: version)
            tokens.append(SealedPaymentToken(token: token).paymentTokenJSON)
        }
        self.tokens = tokens
    }

    /// `plaintext` sealed like seed `index` (same version and merchant), as token JSON bytes.
    func seal(_ plaintext: [UInt8], like index: Int) -> [UInt8] {
        let version = versions[index % versions.count]
        let merchant = version == .ecV1 ? ApplePayTestKeys.ecMerchant : ApplePayTestKeys.rsaMerchant
        guard let token = try? sealer.seal(plaintext: plaintext, to: merchant.certificate, version: version) else { return plaintext }
        return Array(JSONWriter.string(SealedPaymentToken(token: token).paymentTokenJSON).utf8)
    }
}
