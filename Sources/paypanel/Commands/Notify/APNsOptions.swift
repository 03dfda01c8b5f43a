import Foundation
import PayPanel

/// The APNs provider options of `serve` and `notify send`: the team's .p8 key, its key id and
/// team id, the app's topic, the environment and (tests, proxies) another base URL.
enum APNsOptions {
    static let keyFile = OptionSpec.value("--apns-key-file", "p8", help: "The team's APNs key (AuthKey_KEYID.p8, PKCS#8 PEM); must be mode 0600.")
    static let keyID = OptionSpec.value("--apns-key-id", "id", help: "The key's 10-character id (the JWT's kid).")
    static let teamID = OptionSpec.value("--apns-team-id", "id", help: "The 10-character team id (the JWT's iss).")
    static let topic = OptionSpec.value("--apns-topic", "bundle-id", help: "The app's bundle id (apns-topic).")
    static let environment = OptionSpec.value(
        "--apns-environment", "development|production",
        help: "Which APNs: development (api.sandbox.push.apple.com) or production (api.push.apple.com); default production.")
    static let url = OptionSpec.value("--apns-url", "url", help: "Send to this base URL instead of Apple's host (tests, a proxy).")

    static let all = [keyFile, keyID, teamID, topic, environment, url]
    /// Without these three there is no provider; with some but not all, a usage error.
    static let required = [keyFile, keyID, teamID]
}

extension ParsedArguments {
    /// The provider the APNs options describe; nil when none of the key options is given.
    func apnsProvider(clock: any WallClock) throws -> APNsProvider? {
        let given = APNsOptions.required.filter { value($0.name) != nil }
        guard !given.isEmpty else { return nil }
        guard given.count == APNsOptions.required.count else {
            let missing = APNsOptions.required.filter { value($0.name) == nil }.map(\.name).joined(separator: ", ")
            throw UsageError("sending pushes needs --apns-key-file, --apns-key-id and --apns-team-id together; missing \(missing)")
        }
        let environment = try apnsEnvironment()
        let key = try APNsSigningKey(p8File: value(APNsOptions.keyFile.name)!, keyID: value(APNsOptions.keyID.name)!, teamID: value(APNsOptions.teamID.name)!)
        if let url = value(APNsOptions.url.name) {
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
                throw UsageError("'--apns-url' takes an https:// base URL, not '\(url)'")
            }
        }
        return APNsProvider(tokens: APNsProviderTokenSource(key: key, clock: clock), transport: URLSessionAPNsTransport(),
                            environment: environment, baseURL: value(APNsOptions.url.name))
    }

    func apnsEnvironment() throws(UsageError) -> APNsEnvironment {
        let name = try choice(APNsOptions.environment.name, from: APNsEnvironment.allCases.map(\.rawValue))
        return name.flatMap(APNsEnvironment.init(rawValue:)) ?? .production
    }
}
