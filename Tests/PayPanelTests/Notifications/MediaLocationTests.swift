import PayPanel
import Testing

@Suite struct MediaLocationTests {
    @Test(arguments: [
        ("offer.png", MediaLocation.path("offer.png")),
        ("dir/offer.png", MediaLocation.path("dir/offer.png")),
        ("/abs/offer.png", MediaLocation.path("/abs/offer.png")),
        ("file:///tmp/a%20b.png", MediaLocation.file("/tmp/a b.png")),
        ("file://localhost/tmp/a.png", MediaLocation.file("/tmp/a.png")),
        ("http://127.0.0.1:8080/a.png?v=2#top", MediaLocation.web(.init(isSecure: false, host: "127.0.0.1", port: 8080, target: "/a.png?v=2"))),
        ("HTTP://CDN.Example", MediaLocation.web(.init(isSecure: false, host: "cdn.example", port: 80, target: "/"))),
        ("https://cdn.example/x.gif", MediaLocation.web(.init(isSecure: true, host: "cdn.example", port: 443, target: "/x.gif"))),
        ("http://[::1]:9000/v.mp4", MediaLocation.web(.init(isSecure: false, host: "::1", port: 9000, target: "/v.mp4"))),
    ])
    func locationsAreParsed(text: String, expected: MediaLocation) throws {
        #expect(try MediaLocation.parse(text).get() == expected)
    }

    @Test(arguments: [
        ("ftp://host/a.png", "the scheme ftp is not supported"),
        ("data:image/png;base64,AAAA", "the scheme data is not supported"),
        ("http://user:pass@host/a.png", "credentials"),
        ("http://host:0/a.png", "not a number from 1 to 65535"),
        ("http://host:99999/a.png", "not a number from 1 to 65535"),
        ("http://host:8x/a.png", "not a number from 1 to 65535"),
        ("http:///a.png", "has no host"),
        ("http://ho st/a.png", "spaces or control characters"),
        ("file://otherhost/a.png", "cannot name another host"),
        ("file:///bad%zz.png", "badly percent-encoded"),
        ("a.png\n", "control characters"),
    ])
    func badLocationsSayWhatIsWrong(text: String, reason: String) {
        guard case .failure(let error) = MediaLocation.parse(text) else {
            Issue.record("\(text) should not parse")
            return
        }
        #expect(error.message.contains(reason), "\(error.message)")
    }

    @Test func theExtensionComesFromThePathNotTheQuery() throws {
        #expect(try MediaLocation.parse("http://h/offer.PNG?format=gif").get().fileExtension == "png")
        #expect(try MediaLocation.parse("http://h/download?file=a.png").get().fileExtension == nil)
        #expect(try MediaLocation.parse("dir.v2/noext").get().fileExtension == nil)
        #expect(try MediaLocation.parse(".hidden").get().fileExtension == nil)
    }
}
