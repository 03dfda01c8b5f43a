import MockProcessorServer
import Testing

/// The parameter reader: Stripe's bracket nesting, strictly, with every limit.
@Suite("Form parameters: bracket nesting, strict and bounded")
struct FormParametersTests {
    func parse(_ text: String, limits: FormLimits = FormLimits()) throws(FormError) -> FormValue {
        try FormParameters.parseForm(Array(text.utf8), limits: limits)
    }

    @Test("Nested hashes, lists and percent-decoding with '+' as a space")
    func nesting() throws {
        let value = try parse("amount=100&payment_method_data[card][number]=4242&metadata[order+id]=a%2Bb&expand[]=x&expand[]=y")
        #expect(value["amount"] == .string("100"))
        #expect(value["payment_method_data"]?["card"]?["number"] == .string("4242"))
        #expect(value["metadata"]?["order id"] == .string("a+b"))
        #expect(value["expand"] == .list([.string("x"), .string("y")]))
    }

    @Test(
        "Malformed parameters are refused with a reason and the parameter",
        arguments: [
            ("a=1&a=2", "given twice"),
            ("a=1&a[b]=2", "both"),
            ("a[b]=1&a=2", "given twice"),
            ("a[b]=1&a[]=2", "list"),
            ("a[=1", "unbalanced"),
            ("a]=1", "without"),
            ("[a]=1", "starts with"),
            ("a[b]c=1", "unbalanced"),
            ("=1", "empty name"),
            ("a=%zz", "hexadecimal"),
            ("a=%00", "NUL"),
            ("a=%ff", "UTF-8"),
        ])
    func malformed(text: String, reason: String) {
        #expect(throws: FormError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.message.contains(reason), "\(text): \(error.message)")
        }
    }

    @Test("Every limit: pairs, depth, key bytes, value bytes; JSON depth and leaves")
    func limits() throws {
        var limits = FormLimits()
        limits.maximumPairs = 3
        limits.maximumDepth = 2
        limits.maximumKeyBytes = 10
        limits.maximumValueBytes = 5
        _ = try parse("a=1&b=2&c=3", limits: limits)
        #expect(throws: FormError.self) { try parse("a=1&b=2&c=3&d=4", limits: limits) }
        _ = try parse("a[b][c]=1", limits: limits)
        #expect(throws: FormError.self) { try parse("a[b][c][d]=1", limits: limits) }
        #expect(throws: FormError.self) { try parse("abcdefghijk=1", limits: limits) }
        #expect(throws: FormError.self) { try parse("a=123456", limits: limits) }
        _ = try FormParameters.parseJSON(Array(#"{"a":{"b":{"c":"1"}}}"#.utf8), limits: limits)
        #expect(throws: FormError.self) { try FormParameters.parseJSON(Array(#"{"a":{"b":{"c":{"d":"1"}}}}"#.utf8), limits: limits) }
        #expect(throws: FormError.self) { try FormParameters.parseJSON(Array(#"{"a":"1","b":"2","c":"3","d":"4"}"#.utf8), limits: limits) }
        #expect(throws: FormError.self) { try FormParameters.parseJSON(Array(#"[1]"#.utf8), limits: limits) }
    }

    @Test("JSON bodies become the same tree: numbers keep their text, booleans true/false, null is left out")
    func json() throws {
        let value = try FormParameters.parseJSON(Array(#"{"amount":100,"confirm":true,"metadata":{"k":"v"},"description":null,"expand":["a"]}"#.utf8))
        #expect(value == FormParameters.parseFormValue("amount=100&confirm=true&metadata[k]=v&expand[]=a"))
    }
}

extension FormParameters {
    static func parseFormValue(_ text: String) -> FormValue? {
        try? parseForm(Array(text.utf8))
    }
}
