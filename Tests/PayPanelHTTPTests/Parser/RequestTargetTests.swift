import PayPanelHTTP
import Testing

/// Origin-form targets: per-segment decoding, query items, and the refusals.
@Suite struct RequestTargetTests {
    @Test func decodesEachSegmentOnItsOwn() throws {
        let target = try RequestTarget(parsing: "/v1/checkouts/a%2Fb%20c/pay")
        #expect(target.pathSegments == ["v1", "checkouts", "a/b c", "pay"])
        #expect(target.path == "/v1/checkouts/a%2Fb%20c/pay")
        #expect(target.query == nil)
        #expect(target.queryItems.isEmpty)
    }

    @Test func rootAndTrailingSlashesHaveTheirSegments() throws {
        #expect(try RequestTarget(parsing: "/").pathSegments == [])
        #expect(try RequestTarget(parsing: "/a/").pathSegments == ["a", ""])
        #expect(try RequestTarget(parsing: "//").pathSegments == ["", ""])
    }

    @Test func decodesQueryItemsKeepingPlusSigns() throws {
        let target = try RequestTarget(parsing: "/s?email=a+b%40example.com&flag&empty=&=v&&caf%C3%A9=%E2%82%AC")
        #expect(target.query == "email=a+b%40example.com&flag&empty=&=v&&caf%C3%A9=%E2%82%AC")
        #expect(target.queryItems == [
            QueryItem(name: "email", value: "a+b@example.com"),
            QueryItem(name: "flag", value: ""),
            QueryItem(name: "empty", value: ""),
            QueryItem(name: "", value: "v"),
            QueryItem(name: "café", value: "€"),
        ])
        #expect(target.queryValue("email") == "a+b@example.com")
        #expect(try RequestTarget(parsing: "/?").queryItems.isEmpty)
    }

    @Test func acceptsBracketsInTheQueryAsClientsSendThem() throws {
        let target = try RequestTarget(parsing: "/v1/payment_intents?metadata[order]=42&metadata%5Bshop%5D=north")
        #expect(target.queryItems == [QueryItem(name: "metadata[order]", value: "42"), QueryItem(name: "metadata[shop]", value: "north")])
        #expect(throws: HTTPParseError.self) { try RequestTarget(parsing: "/v1/[a]") }
    }

    @Test(arguments: ["", "a/b", "/a b", "/a%", "/a%2", "/%C3", "/a%00", "/./a", "/a/.", "/a?x=%", "/a?x=\"", "/a?x=1#f"])
    func refuses(_ raw: String) {
        #expect(throws: HTTPParseError.self) { try RequestTarget(parsing: raw) }
    }
}
