import PayPanelHTTP
import Testing

/// The one percent-decoder: the same strictness for request targets, form bodies and media URLs.
@Suite struct PercentDecodingTests {
    @Test(arguments: [
        ("a%41b", false, "aAb"), ("%e2%82%AC", false, "€"), ("a+b", false, "a+b"), ("a+b", true, "a b"),
        ("%2B", true, "+"), ("", false, ""), ("plain", true, "plain"),
    ])
    func decodes(_ input: String, _ plusIsSpace: Bool, _ expected: String) {
        #expect(PercentDecoding.decode(input.utf8, plusIsSpace: plusIsSpace) == .success(expected))
    }

    /// `UInt8("+f", radix: 16)` is 15: a decoder built on it took `%+f` (and `%-0`) for escapes.
    @Test(arguments: ["%", "%4", "%4g", "%+f", "%-0", "% f", "a%zz", "%%41"])
    func refusesWhatIsNotTwoHexDigits(_ input: String) {
        #expect(PercentDecoding.decode(input.utf8) == .failure(.badEscape), "\(input)")
    }

    @Test func refusesNULAndBytesThatAreNotUTF8() {
        #expect(PercentDecoding.decode("a%00b".utf8) == .failure(.nul))
        #expect(PercentDecoding.decode([0x61, 0x00]) == .failure(.nul))
        #expect(PercentDecoding.decode("%C3%28".utf8) == .failure(.notUTF8))
        #expect(PercentDecoding.decode("%FF".utf8, plusIsSpace: true) == .failure(.notUTF8))
    }
}
