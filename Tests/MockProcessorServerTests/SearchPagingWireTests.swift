import Foundation
import Testing
import TestSupport

/// Search pages the way the Stripe SDKs follow them: `has_more` with a `next_page` token, passed
/// back as `page` (stripe-python's `auto_paging_iter` looped on the first page forever when the
/// token was missing).
@Suite("processor serve: search pagination")
struct SearchPagingWireTests {
    @Test("limit=2 over five matches: three pages by next_page, each intent once, the last page has no token; a foreign token is a 400 on page")
    func searchPagesByToken() async throws {
        let directory = try TemporaryDirectory("procserve-search")
        let processor = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: processor.port, key: "sk_test_search_paging")
        var created: [String] = []
        for _ in 0..<5 {
            created.append(try await client.call("POST", "/v1/payment_intents", [("amount", "100"), ("currency", "usd"), ("metadata[batch]", "b1")]).id)
        }
        _ = try await client.call("POST", "/v1/payment_intents", [("amount", "100"), ("currency", "usd"), ("metadata[batch]", "other")])
        var seen: [String] = []
        var page: String?
        var pages = 0
        repeat {
            let reply = try await client.call(
                "GET", "/v1/payment_intents/search", [("query", "metadata['batch']:'b1'"), ("limit", "2")] + (page.map { [("page", $0)] } ?? []))
            #expect(reply.status == 200, "\(reply.text)")
            seen += reply["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            let hasMore = reply["has_more"]?.boolValue == true
            page = reply["next_page"]?.stringValue
            #expect(hasMore == (page != nil), "next_page exactly when has_more: \(reply.text)")
            pages += 1
        } while page != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == created.reversed(), "newest first, each once")

        let refused = try await client.call("GET", "/v1/payment_intents/search", [("query", "metadata['batch']:'b1'"), ("page", "pi_not_a_token")])
        #expect(refused.status == 400 && refused.error?["param"]?.stringValue == "page", "\(refused.text)")
        #expect(await processor.terminate() == 0)
    }
}
