import Foundation
import PayPanel
import Testing

/// `WebhookURLRule.problem` and `WebhookURLRule.pattern` (the OpenAPI documents' pattern) must
/// describe the same URLs: a schema-valid URL the server refuses fails a client that trusted the
/// schema, and a URL the server stores that clients cannot parse (Python's `urlsplit` raises on
/// `https://[AecD:03]`) breaks everyone who lists the endpoints.
@Suite struct WebhookURLRuleTests {
    static let regex = try! NSRegularExpression(pattern: WebhookURLRule.pattern)

    static func matchesPattern(_ url: String) -> Bool {
        regex.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
    }

    @Test(arguments: [
        "https://example.com/hook", "http://127.0.0.1:9/hook", "https://[::1]/hook", "https://[2001:db8::1]:8443/",
        "https://[::ffff:192.0.2.1]/", "https://[1:2:3:4:5:6:7:8]", "https://[fe80::]/x?y=1", "https://x.example:65535/",
    ])
    func acceptsWhatServersAndClientsRead(url: String) {
        #expect(WebhookURLRule.problem(url) == nil, "\(url)")
        #expect(Self.matchesPattern(url), "\(url)")
    }

    @Test(arguments: [
        "https://[AecD:03]/", "https://[::1::2]/", "https://[1:2:3:4:5:6:7:8:9]/", "https://[12345::]/", "https://[1.2.3.4]/",
        "https://[::1%25eth0]/", "https://[]/", "https://[:]/", "https://[::ffff:1.2.3]/", "https://[::ffff:01.2.3.4]/",
        "ftp://x.example/", "https://ex_ample.com/", "https://ex%41mple.com/", "https://example.com:0/", "https://example.com:70000/",
        "https://user@example.com/", "https://example.com/#frag", "https://exa mple.com/",
    ])
    func refusesWhatCanNeverBeReached(url: String) {
        #expect(WebhookURLRule.problem(url) != nil, "\(url)")
        #expect(!Self.matchesPattern(url), "\(url)")
    }

    /// Bracketed hosts drawn from the characters an IPv6 address is written with, the way a
    /// property-based tester draws them from a loose pattern: the rule and the pattern agree on
    /// every one, and each accepted host is one `inet_pton` reads back.
    @Test func theRuleAndThePatternAgreeOnGeneratedBracketedHosts() {
        var random = SeededRandomNumberGenerator(seed: 4217)
        let alphabet = Array("0123456789abcdefABCDEF:::::.")
        var accepted = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...24, using: &random)
            let inner = String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
            let url = "https://[\(inner)]:443/hook"
            let byRule = WebhookURLRule.problem(url) == nil
            #expect(byRule == Self.matchesPattern(url), "\(url): rule \(byRule), pattern \(!byRule)")
            if byRule {
                accepted += 1
                #expect(IPAddress(inner)?.bytes.count == 16, "\(inner)")
            }
        }
        #expect(accepted > 100, "the generator must reach valid addresses too, not only refusals: \(accepted)")
    }
}
