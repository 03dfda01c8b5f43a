import PayPanel
import PayPanelDemo

/// Which root a command that takes payment tokens from the user trusts, and whether Apple
/// Pay sandbox tokens pass: the options and their resolution in one place, for `token verify`,
/// `token decrypt`, `payments authorize --token` and the coming `serve`.
///
/// Safe by default: Apple Root CA - G3 (built into the library) and production tokens only.
/// `--root PATH` (or $PAYPANEL_APPLE_ROOT) pins another root; `--test-root` trusts PayPanel's
/// test root, whose private key is in the repository, and is the only way to accept tokens
/// from `paypanel token seal`. Test mode (`--test-root`) accepts sandbox tokens too; otherwise
/// they need `--allow-sandbox`, whichever root is pinned: a sandbox token is Apple-signed under
/// Apple's own root, so pinning that root explicitly says nothing about wanting test cards.
struct TokenTrust {
    static let root = OptionSpec.value(
        "--root", "certificate",
        help: "The root (PEM or DER) tokens must chain to. Default: $\(rootVariable), else Apple Root CA - G3 (built in).")
    static let testRoot = OptionSpec.flag(
        "--test-root",
        help: "Test mode: trust PayPanel's built-in test root (and, without merchant keys, its test merchants), for tokens "
            + "from 'paypanel token seal'; sandbox tokens pass too. Its private key is public: never in production.")
    static let allowSandbox = OptionSpec.flag(
        "--allow-sandbox", help: "Accept tokens signed by Apple Pay's sandbox (sandbox test cards). Refused by default; never for real money.")

    static let rootVariable = "PAYPANEL_APPLE_ROOT"

    /// The trust options, in the order help lists them.
    static let options: [OptionSpec] = [root, testRoot, allowSandbox]

    /// Where the trusted root came from.
    enum Source: Equatable {
        /// Apple Root CA - G3, built into the library.
        case appleDefault
        /// A certificate file from `--root` or $PAYPANEL_APPLE_ROOT (`option` says which).
        case file(path: String, option: String)
        /// PayPanel's test root (`--test-root`).
        case testRoot
    }

    let root: Certificate
    let source: Source
    /// Sandbox tokens pass: test mode, or `--allow-sandbox`.
    let acceptsSandbox: Bool

    /// True with `--test-root`: the test root, and the test merchants when none are given.
    var isTestMode: Bool { source == .testRoot }

    /// Reads the options (and $PAYPANEL_APPLE_ROOT).
    init(arguments: ParsedArguments, console: Console) throws {
        let testMode = arguments.flag(Self.testRoot.name)
        let rootPath = arguments.value(Self.root.name)
        if testMode && rootPath != nil {
            throw UsageError("give either '\(Self.root.name)' or '\(Self.testRoot.name)', not both: '\(Self.testRoot.name)' pins PayPanel's test root")
        }
        let environmentPath = console.environment[Self.rootVariable].flatMap { $0.isEmpty ? nil : $0 }
        if testMode {
            root = ApplePayTestKeys.root
            source = .testRoot
        } else if let path = rootPath ?? environmentPath {
            root = try ParsedArguments.certificate(at: path, what: "root certificate", console: console)
            source = .file(path: path, option: rootPath != nil ? Self.root.name : "$\(Self.rootVariable)")
        } else {
            root = ApplePayRoots.appleRootCAG3
            source = .appleDefault
        }
        acceptsSandbox = testMode || arguments.flag(Self.allowSandbox.name)
    }

    /// `error`, with what to do on the command line added where the library cannot say it:
    /// a token made with PayPanel's test identity needs `--test-root`, a sandbox token
    /// `--allow-sandbox`. Anything else is returned as it is.
    func explained(_ error: any Error) -> any Error {
        guard let tokenError = error as? ApplePayTokenError else { return error }
        switch tokenError {
        case .rootNotTrusted where ApplePayTestKeys.chainEndsAtTestRoot(tokenError):
            let trusted = switch source {
            case .appleDefault: "which is not trusted by default"
            case .file(let path, let option): "which is not the root \(option) pins (\(path))"
            case .testRoot: "which is not trusted"
            }
            return CLIFailure(
                code: tokenError.code,
                message: "the token's signing chain ends at PayPanel's built-in test root, \(trusted); "
                    + "pass \(Self.testRoot.name) to accept test tokens (never in production)")
        case .sandboxNotAccepted:
            return CLIFailure(
                code: tokenError.code,
                message: tokenError.message + "; pass \(Self.allowSandbox.name) to accept sandbox tokens (testing only, never for real money)")
        default:
            return error
        }
    }

    /// One line for output: which root this run trusts.
    var rootDescription: String {
        switch source {
        case .appleDefault: "\(root.commonName ?? root.subject) (built in)"
        case .file(let path, _): "\(root.commonName ?? root.subject) (\(path))"
        case .testRoot: "\(root.commonName ?? root.subject) (test mode: PayPanel's test root)"
        }
    }
}
