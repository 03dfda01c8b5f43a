import Foundation
import PayPanel
import Testing

/// The relay never posts to where a merchant's URL should not reach: every resolved address
/// is checked, and names that resolve to a private address are refused like the literal.
@Suite struct WebhookDestinationPolicyTests {
    @Test(arguments: [
        "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
        "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
        "ff02::1", "64:ff9b::a9fe:a9fe",
    ])
    func nonPublicAddressesAreRefused(_ address: String) throws {
        let ip = try #require(IPAddress(address))
        #expect(!ip.isPublic)
        let host = address.contains(":") ? "[\(address)]" : address
        #expect(WebhookDestinationPolicy(allowPrivate: false).refusal(for: "https://\(host)/hook") != nil)
    }

    @Test(arguments: ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
    func publicAddressesPass(_ address: String) throws {
        #expect(try #require(IPAddress(address)).isPublic)
    }

    @Test func everyResolvedAddressIsChecked() {
        let policy = WebhookDestinationPolicy(allowPrivate: false) { host in
            host == "mixed.example" ? [IPAddress("93.184.216.34")!, IPAddress("10.0.0.5")!] : [IPAddress("93.184.216.34")!]
        }
        #expect(policy.refusal(for: "https://public.example/hook") == nil)
        #expect(policy.refusal(for: "https://mixed.example/hook")?.contains("10.0.0.5") == true)
        #expect(policy.refusal(for: "http://public.example/hook")?.contains("https") == true)
        #expect(policy.refusal(for: "ftp://public.example/hook") != nil)
        let unresolvable = WebhookDestinationPolicy(allowPrivate: false) { _ in nil }
        #expect(unresolvable.refusal(for: "https://nowhere.example/") != nil)
    }

    @Test func allowPrivateLetsLoopbackAndHTTPThrough() {
        let policy = WebhookDestinationPolicy(allowPrivate: true)
        #expect(policy.refusal(for: "http://127.0.0.1:9/hook") == nil)
        #expect(policy.refusal(for: "https://[::1]/hook") == nil)
    }
}
