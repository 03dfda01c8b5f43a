import Foundation
import Testing

@testable import PayPanel
import PayPanelDemo

/// The byte-level readers on the token path: base64, the CMS certificate splitter, and the
/// JSON string and card number fast paths the token work added.
@Suite struct EncodingTests {
    @Test(arguments: [
        ("", []), ("AA==", [0]), ("AAE=", [0, 1]), ("AAEC", [0, 1, 2]), ("/+/+", [0xFF, 0xEF, 0xFE]),
    ] as [(String, [UInt8])])
    func base64DecodesStandardAlphabetWithPadding(text: String, bytes: [UInt8]) {
        #expect(Base64.decode(text) == bytes)
        #expect(Base64.encode(bytes) == text)
    }

    @Test(arguments: ["A", "AA", "AAA", "AA=A", "A===", "AB==", "AAF=", "AA-_", "AA AA", "AAAA\n", "=AAA"])
    func base64RefusesAnythingElse(text: String) {
        // Includes non-zero padding bits ("AB==", "AAF="): one spelling per byte string.
        #expect(Base64.decode(text) == nil)
    }

    @Test func base64RoundTripsEveryLength() {
        let random = SeededRandomBytes(seed: "base64")
        for length in 0..<70 {
            let bytes = random.bytes(length)
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
    }

    @Test func splitterSeparatesCertificatesFromDERAndIndefiniteLengthBER() throws {
        let token = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON())
        let der = try token.decodedSignature()
        let split = try CMSCertificateSplitter.split(der)
        #expect(split.certificates.count == 2)
        let leaf = ApplePayTestKeys.signer.certificate.derRepresentation
        let intermediate = ApplePayTestKeys.signer.intermediate.derRepresentation
        #expect(Set(split.certificates) == Set([leaf, intermediate]))

        // The same structure with Apple's indefinite lengths on the three outer wrappers.
        let ber = try Self.indefiniteOuterLengths(der)
        #expect(ber[1] == 0x80)
        let berSplit = try CMSCertificateSplitter.split(ber)
        #expect(berSplit.certificates == split.certificates)
        #expect(berSplit.withoutCertificates == split.withoutCertificates)

        // And a token carrying that BER signature verifies.
        let berToken = ApplePayPaymentToken(version: token.version, data: token.data, signature: ber, header: token.header)
        _ = try TokenFixtures.decryptor().decrypt(TokenFixtures.json(berToken), at: TokenFixtures.signingTime)
    }

    @Test func splitterRefusesBrokenEncodings() throws {
        let der = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON()).decodedSignature()
        #expect(throws: OpenSSLError.self) { _ = try CMSCertificateSplitter.split(Array(der.dropLast(10))) }
        #expect(throws: OpenSSLError.self) { _ = try CMSCertificateSplitter.split(der + [0, 0]) }
        #expect(throws: OpenSSLError.self) { _ = try CMSCertificateSplitter.split([0x30, 0x80]) }
        #expect(throws: OpenSSLError.self) { _ = try CMSCertificateSplitter.split([0x04, 0x80, 0x00, 0x00]) }
        // Deeply nested indefinite lengths stop at the depth limit instead of the stack.
        let bomb = [UInt8](repeating: 0, count: 20_000).indices.map { $0 % 2 == 0 ? UInt8(0x30) : UInt8(0x80) }
        #expect(throws: OpenSSLError.self) { _ = try CMSCertificateSplitter.split(bomb) }
    }

    @Test(arguments: [
        (#""plain ascii run""#, "plain ascii run"),
        (#""a\"b\\c\/d\n""#, "a\"b\\c/d\n"),
        (#""caf\u00e9 \ud83d\ude00""#, "café 😀"),
        ("\"naïve ünïcödé and more ascii after it\"", "naïve ünïcödé and more ascii after it"),
        (#""0123456789abcdef0123456789abcdef\t""#, "0123456789abcdef0123456789abcdef\t"),
    ])
    func jsonStringsWithRunsEscapesAndUnicodeParseExactly(json: String, expected: String) throws {
        #expect(try JSONParser().parse(json) == .string(expected))
    }

    @Test(arguments: ["\"abcdefgh\u{01}ijkl\"", "\"abcdefghijklmnop\u{1F}\"", "\"abc"])
    func jsonStringsWithRawControlCharactersOrNoEndAreRefused(json: String) {
        #expect(throws: JSONParseError.self) { _ = try JSONParser().parse(json) }
    }

    @Test func jsonDuplicateNamesAreRefusedInSmallAndLargeObjects() {
        #expect(throws: JSONParseError.self) { _ = try JSONParser().parse(#"{"a":1,"b":2,"a":3}"#) }
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(throws: JSONParseError.self) { _ = try JSONParser().parse("{\(many),\"k7\":0}") }
        #expect((try? JSONParser().parse("{\(many)}"))?.objectValue?.count == 40)
    }

    @Test(arguments: [
        ("4242 4242 4242 4242", nil), ("4242-4242-4242-4242", nil), ("", "empty"), ("4242424242424241", "Luhn"),
        ("42424242424242424242", "wrong length"), ("４２４２４２４２４２４２４２４２", "not digits"), ("4242424242424242\n", "not digits"),
    ] as [(String, String?)])
    func cardNumbersReadDigitsGroupedBySpacesOrDashes(text: String, failure: String?) {
        let result = Result { () throws(CardNumberError) in try CardNumber(text) }
        switch (result, failure) {
        case (.success(let number), nil): #expect(number.digits == "4242424242424242")
        case (.failure(.empty), "empty"), (.failure(.failedLuhnCheck), "Luhn"), (.failure(.wrongLength), "wrong length"),
            (.failure(.notDigits), "not digits"):
            break
        default: Issue.record("\(text): \(result)")
        }
    }

    /// Rewrites the ContentInfo, its [0] and the SignedData with indefinite lengths (what
    /// Apple's signer emits), leaving everything inside as it was.
    static func indefiniteOuterLengths(_ der: [UInt8]) throws -> [UInt8] {
        func header(_ bytes: [UInt8], at start: Int) -> (tag: UInt8, contentStart: Int, length: Int) {
            let first = bytes[start + 1]
            if first < 0x80 { return (bytes[start], start + 2, Int(first)) }
            let count = Int(first & 0x7F)
            let length = bytes[(start + 2)..<(start + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
            return (bytes[start], start + 2 + count, length)
        }
        let contentInfo = header(der, at: 0)
        let oid = header(der, at: contentInfo.contentStart)
        let explicit = header(der, at: oid.contentStart + oid.length)
        let signedData = header(der, at: explicit.contentStart)
        let inner = Array(der[signedData.contentStart..<(signedData.contentStart + signedData.length)])
        let oidBytes = Array(der[contentInfo.contentStart..<(oid.contentStart + oid.length)])
        return [0x30, 0x80] + oidBytes + [0xA0, 0x80, 0x30, 0x80] + inner + [0, 0, 0, 0, 0, 0]
    }
}
