import Foundation
import PayPanel
import PayPanelDemo

/// The options that say which merchant keys and which root a token is checked against, shared
/// by `token verify`, `token decrypt` and `payments authorize --token`. The root and the
/// sandbox rule are `TokenTrust`'s: Apple Root CA - G3 unless told otherwise. The built-in test
/// merchants and test root are used only with `--test-root`.
enum TokenOptions {
    static let merchantCertificate = OptionSpec.value(
        "--merchant-cert", "pem", repeatable: true,
        help: "A merchant Payment Processing certificate (PEM). Repeat it, each with its --merchant-key, to accept "
            + "several (rotation). Default: $\(merchantCertificateVariable) (paths separated by ':'), else (with --test-root only) the built-in test merchants.")
    static let merchantKey = OptionSpec.value(
        "--merchant-key", "pem", repeatable: true,
        help: "The private key of the --merchant-cert in the same position: SEC1 EC, PKCS#8 or PKCS#1 RSA PEM. "
            + "Default: $\(merchantKeyVariable).")
    static let window = OptionSpec.value(
        "--window", "seconds", help: "How far the signing time may be from the verification time (default 300).")
    static let noTimeCheck = OptionSpec.flag(
        "--no-time-check", help: "Do not check the signing time (only for old test fixtures).")

    static let merchantCertificateVariable = "PAYPANEL_MERCHANT_CERT"
    static let merchantKeyVariable = "PAYPANEL_MERCHANT_KEY"

    /// What `payments authorize --token` takes to check the token (its clock is its own).
    static let checking: [OptionSpec] = [merchantCertificate, merchantKey] + TokenTrust.options + [window, noTimeCheck]

    /// Everything `token verify` and `token decrypt` take besides the token.
    static let verification: [OptionSpec] = [merchantCertificate, merchantKey] + TokenTrust.options + [CommonOptions.now, window, noTimeCheck]
}

/// A verifier built from the options, with the trust it was built on (which explains refusals).
struct TokenVerification {
    let verifier: ApplePayTokenVerifier
    let trust: TokenTrust

    /// Runs `body`, turning a refusal into one that says which option would change it.
    func explaining<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw trust.explained(error)
        }
    }
}

extension ParsedArguments {
    /// The verifier the options (or the environment) describe: Apple Root CA - G3 and the given
    /// merchant keys, or with `--test-root` the test root and (unless keys are given) the test
    /// merchants.
    func tokenVerification(console: Console) throws -> TokenVerification {
        let trust = try TokenTrust(arguments: self, console: console)
        let environment = console.environment
        var certificatePaths = allValues(TokenOptions.merchantCertificate.name)
        var keyPaths = allValues(TokenOptions.merchantKey.name)
        var source = "--merchant-cert/--merchant-key"
        if certificatePaths.isEmpty && keyPaths.isEmpty {
            certificatePaths = Self.pathList(environment[TokenOptions.merchantCertificateVariable])
            keyPaths = Self.pathList(environment[TokenOptions.merchantKeyVariable])
            source = "$\(TokenOptions.merchantCertificateVariable)/$\(TokenOptions.merchantKeyVariable)"
        }
        guard certificatePaths.count == keyPaths.count else {
            throw UsageError("\(source): \(certificatePaths.count) certificate(s) but \(keyPaths.count) key(s); give each certificate its key, in the same order")
        }
        var merchants: [MerchantIdentity] = []
        for (certificatePath, keyPath) in zip(certificatePaths, keyPaths) {
            merchants.append(try Self.merchantIdentity(certificatePath: certificatePath, keyPath: keyPath, console: console))
        }
        if merchants.isEmpty && trust.isTestMode {
            merchants = [ApplePayTestKeys.ecMerchant, ApplePayTestKeys.rsaMerchant]
        }
        let window = try integer(TokenOptions.window.name, in: 0...86_400).map(Double.init) ?? ApplePayTokenVerifier.defaultSigningTimeWindow
        let verifier = try ApplePayTokenVerifier(
            merchants: merchants, trustedRoot: trust.root, signingTimeWindow: window, checksSigningTime: !flag(TokenOptions.noTimeCheck.name),
            acceptsSandbox: trust.acceptsSandbox)
        return TokenVerification(verifier: verifier, trust: trust)
    }

    /// A certificate file, PEM or DER, with the path in any error.
    static func certificate(at path: String, what: String, console: Console) throws -> Certificate {
        let bytes = try InputFile.read(path, console: console, what: what)
        do {
            return try Certificate(fileContents: bytes)
        } catch {
            throw CLIFailure(code: error.code, message: "the \(what) \(path): \(error.message)")
        }
    }

    private static func merchantIdentity(certificatePath: String, keyPath: String, console: Console) throws -> MerchantIdentity {
        let certificate = try certificate(at: certificatePath, what: "merchant certificate", console: console)
        let keyText = String(decoding: try InputFile.read(keyPath, console: console, what: "merchant key"), as: UTF8.self)
        let key: PrivateKey
        do {
            key = try PrivateKey(pemRepresentation: keyText)
        } catch {
            throw CLIFailure(code: error.code, message: "the merchant key \(keyPath): \(error.message)")
        }
        do {
            return try MerchantIdentity(certificate: certificate, privateKey: key)
        } catch {
            throw CLIFailure(code: error.code, message: "the merchant certificate \(certificatePath) and key \(keyPath): \(error.message)")
        }
    }

    private static func pathList(_ value: String?) -> [String] {
        (value ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
    }
}
