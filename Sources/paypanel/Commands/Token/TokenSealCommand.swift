import Foundation
import PayPanel
import PayPanelDemo

/// `paypanel token seal --card PAN --amount 10 [--currency USD] [--version EC_v1|RSA_v1] …`
struct TokenSealCommand: CLICommand {
    static let card = OptionSpec.value("--card", "number", help: "The test card's device account number (Luhn-valid).")
    static let amount = OptionSpec.value("--amount", "amount", help: "The amount the payer approves, e.g. 10 or 10.00.")
    static let currency = OptionSpec.value("--currency", "code", help: "ISO 4217 currency code (default USD).")
    static let version = OptionSpec.value(
        "--version", "version", help: "EC_v1 or RSA_v1 (default: EC_v1, or RSA_v1 for an RSA --merchant-cert).")
    static let expiry = OptionSpec.value("--expiry", "MM/YY", help: "Card expiry (default: December, three years from now).")
    static let eci = OptionSpec.value("--eci", "digits", help: "Electronic Commerce Indicator to include, e.g. 05.")
    static let holder = OptionSpec.value("--holder", "name", help: "Cardholder name to include.")
    static let merchantCertificate = OptionSpec.value(
        "--merchant-cert", "pem", help: "The merchant certificate to encrypt to (default: the built-in test merchant).")
    static let signerDirectory = OptionSpec.value(
        "--signer-dir", "dir",
        help: "A directory with \(TokenSigningIdentity.certificateFileName), \(TokenSigningIdentity.privateKeyFileName) "
            + "and \(TokenSigningIdentity.intermediateFileName) (default: the built-in test chain, as in fixtures/keys).")
    static let applicationData = OptionSpec.value("--application-data", "hex", help: "header.applicationData to bind, in hex.")
    static let paymentDataOnly = OptionSpec.flag(
        "--payment-data", help: "Print only the paymentData object instead of the whole PKPaymentToken.")

    static let spec = CommandSpec(
        name: "seal",
        abstract: "Make a test Apple Pay payment token, as a device would, for a test card.",
        discussion: """
            Encrypts the card's payment data (with a fresh random cryptogram) to the merchant \
            certificate and signs it with the test signing chain, so 'token verify', 'token decrypt' \
            and 'payments authorize --token' run their real checks on it, given --test-root: the test \
            chain ends at PayPanel's test root, which nothing trusts by default. The signing time is \
            now (or --now). Prints the PKPaymentToken JSON.
            """,
        options: [card, amount, currency, version, expiry, eci, holder, merchantCertificate, signerDirectory, applicationData,
                  paymentDataOnly, CommonOptions.now])

    let arguments: ParsedArguments
    let dpan: CardNumber
    let amountValue: Amount
    let requestedVersion: PaymentTokenVersion?
    let eciValue: String?
    let applicationDataBytes: [UInt8]?

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        guard let cardText = arguments.value(Self.card.name) else { throw UsageError("Missing '--card <number>': the test card to seal") }
        guard let amountText = arguments.value(Self.amount.name) else { throw UsageError("Missing '--amount <amount>': the amount to approve") }
        do {
            dpan = try CardNumber(cardText)
        } catch {
            throw UsageError("'--card': \(error.message)")
        }
        let currency: Currency
        do {
            currency = try Currency(code: arguments.value(Self.currency.name) ?? "USD")
            amountValue = try Amount.parse(amountText, currency: currency)
        } catch {
            throw UsageError("'--amount'/'--currency': \(error.message)")
        }
        guard amountValue.minorUnits >= 0 else { throw UsageError("'--amount' must not be negative") }
        requestedVersion = try arguments.choice(Self.version.name, from: PaymentTokenVersion.allCases.map(\.rawValue))
            .flatMap(PaymentTokenVersion.init(rawValue:))
        eciValue = arguments.value(Self.eci.name)
        if let eciValue, eciValue.isEmpty || eciValue.count > 2 || !eciValue.allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw UsageError("'--eci' takes one or two digits, such as 05, not '\(eciValue)'")
        }
        applicationDataBytes = try arguments.value(Self.applicationData.name).map { text in
            guard !text.isEmpty, let bytes = [UInt8](hexString: text) else {
                throw UsageError("'--application-data' takes hexadecimal bytes, not '\(text)'")
            }
            return bytes
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let clock = try arguments.clock(environment: context.environment)
        let merchant = try arguments.value(Self.merchantCertificate.name).map {
            try ParsedArguments.certificate(at: $0, what: "merchant certificate", console: console)
        }
        let version = requestedVersion ?? (merchant.map(Self.isRSA) == true ? .rsaV1 : .ecV1)
        let recipient = merchant ?? (version == .ecV1 ? ApplePayTestKeys.ecMerchant : ApplePayTestKeys.rsaMerchant).certificate
        let signer = try arguments.value(Self.signerDirectory.name).map { try Self.signer(in: $0, console: console) }
            ?? ApplePayTestKeys.signer
        var expiry = Self.defaultExpiry(now: clock.now())
        if let text = arguments.value(Self.expiry.name) {
            do {
                expiry = try CardExpiry(text)
            } catch {
                throw UsageError("'--expiry': \(error.message)")
            }
        }
        let details = TokenCardDetails(
            dpan: dpan, expiry: expiry, amount: amountValue, eci: eciValue, cardholderName: arguments.value(Self.holder.name))
        let sealed = try ApplePayTokenSealer(signer: signer, clock: clock)
            .seal(details, to: recipient, version: version, applicationData: applicationDataBytes)
        console.printJSON(arguments.flag(Self.paymentDataOnly.name) ? sealed.paymentDataJSON : sealed.paymentTokenJSON)
        return .success
    }

    private static func isRSA(_ certificate: Certificate) -> Bool {
        certificate.receivableTokenVersion == .rsaV1
    }

    private static func signer(in directory: String, console: Console) throws -> TokenSigningIdentity {
        let base = URL(fileURLWithPath: directory)
        func text(_ name: String) throws -> String {
            String(decoding: try InputFile.read(base.appending(path: name).path, console: console, what: "signer file"), as: UTF8.self)
        }
        do {
            return try TokenSigningIdentity(
                certificatePEM: try text(TokenSigningIdentity.certificateFileName),
                privateKeyPEM: try text(TokenSigningIdentity.privateKeyFileName),
                intermediatePEM: try text(TokenSigningIdentity.intermediateFileName))
        } catch let error as KeyMaterialError {
            throw CLIFailure(code: error.code, message: "the signing chain in \(directory): \(error.message)")
        }
    }

    /// December, three years after `now`: always in the future, and the same for a given --now.
    private static func defaultExpiry(now: Date) -> CardExpiry {
        let year = min(max((Int(Timestamp.format(now).prefix(4)) ?? 2026) + 3, 2000), 2099)
        guard let expiry = try? CardExpiry(month: 12, year: year) else { preconditionFailure("12/\(year) is a valid expiry") }
        return expiry
    }
}
