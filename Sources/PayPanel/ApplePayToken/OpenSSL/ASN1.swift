import Foundation
internal import COpenSSL

/// ASN.1 times and object identifiers, converted to and from Swift values.
enum ASN1Time {
    /// The instant an `ASN1_TIME` (UTCTime or GeneralizedTime) names; nil when OpenSSL cannot
    /// read it.
    static func date(_ time: UnsafePointer<ASN1_TIME>) -> Date? {
        var fields = tm()
        guard ASN1_TIME_to_tm(time, &fields) == 1 else {
            OpenSSLError.drainQueue()
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&fields)))
    }

    /// A new `ASN1_TIME` for `date` (whole seconds; UTCTime up to 2049, GeneralizedTime after,
    /// as X.509 and CMS require). The caller frees it with `ASN1_TIME_free`.
    static func make(_ date: Date) throws(OpenSSLError) -> UnsafeMutablePointer<ASN1_TIME> {
        guard let time = ASN1_TIME_set(nil, time_t(date.unixSeconds)) else {
            throw OpenSSLError.drain("encoding a time")
        }
        return time
    }

    /// `time_t` for OpenSSL's verification time.
    static func timeT(_ date: Date) -> time_t {
        time_t(date.unixSeconds)
    }
}

/// An ASN.1 object identifier made once from its dotted form (`1.2.840.113635.100.6.29`).
/// Immutable, so shared freely between threads.
final class ASN1ObjectIdentifier: @unchecked Sendable, CustomStringConvertible {
    let dotted: String
    private let pointer: OpaquePointer

    /// `dotted` is a constant in the source; a malformed one is a programming error.
    init(_ dotted: String) {
        guard let object = OBJ_txt2obj(dotted, 1) else {
            fatalError("\(dotted) is not a dotted object identifier")
        }
        self.dotted = dotted
        pointer = object
    }

    deinit {
        ASN1_OBJECT_free(pointer)
    }

    /// Runs `body` with the `ASN1_OBJECT`, which stays alive until `body` returns.
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }

    var description: String { dotted }
}
