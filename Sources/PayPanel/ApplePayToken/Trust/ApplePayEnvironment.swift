/// Which Apple Pay environment signed a token: production (real cards) or the sandbox (the
/// test cards a sandbox tester's wallet holds).
///
/// Both are signed under Apple Root CA - G3 through the same intermediate (Apple Application
/// Integration CA - G3); only the signing leaf differs. Apple names it
/// `ecc-smp-broker-sign_UC4-PROD` (or `rsa-…` for RSA_v1) in production and
/// `ecc-smp-broker-sign_UC4-SANDBOX` in the sandbox, and nothing else in the token tells them
/// apart, so the leaf's common name decides: one ending in `-SANDBOX` (any case) is the
/// sandbox, everything else production (the chain and the leaf marker already prove Apple
/// signed it; a leaf Apple renames later, `_UC5-…`, keeps its suffix).
public enum ApplePayEnvironment: String, Sendable, CaseIterable {
    case production
    case sandbox

    /// The environment whose leaf `signer` is.
    public init(signer: Certificate) {
        self = (signer.commonName ?? "").uppercased().hasSuffix("-SANDBOX") ? .sandbox : .production
    }
}
