import Foundation

/// The client secret of a checkout, `co_…_secret_…`: the device's Bearer token, which can only
/// pay that checkout. Only its SHA-256 is stored; it is shown once, in the create response,
/// and compared in constant time.
enum CheckoutSecret {
    static let separator = "_secret_"

    /// A new secret for `checkoutID`, whose random part is `randomPart` (a fresh id's body).
    static func make(checkoutID: String, randomPart: String) -> String {
        checkoutID + separator + randomPart
    }

    static func hash(_ secret: String) -> [UInt8] { SHA256.hash(secret) }

    /// The checkout id a secret claims to belong to, when it has the shape of one.
    static func claimedCheckoutID(_ secret: String) -> String? {
        guard let range = secret.range(of: separator) else { return nil }
        let id = String(secret[..<range.lowerBound])
        let random = secret[range.upperBound...]
        guard PaymentIDs.isWellFormed(id, kind: .checkout), PaymentIDs.isWellFormed("co_" + random, kind: .checkout) else { return nil }
        return id
    }

    /// True when `secret` hashes to `storedHash`, compared in constant time.
    static func matches(_ secret: String, storedHash: [UInt8]) -> Bool {
        ConstantTime.equals(hash(secret), storedHash)
    }
}
