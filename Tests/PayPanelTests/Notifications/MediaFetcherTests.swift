import Foundation
import PayPanel
import PayPanelHTTP
import Testing
import TestSupport

@Suite struct LocalFileFetcherTests {
    @Test func relativePathsAreReadFromTheAttachmentsDirectory() throws {
        let directory = try TemporaryDirectory()
        try directory.write("a.png", "png bytes")
        let fetched = try LocalFileFetcher(root: directory.path).read("a.png", maximumBytes: 100)
        #expect(fetched.bytes == Array("png bytes".utf8))
        #expect(fetched.localFile?.hasSuffix("/a.png") == true)
    }

    @Test(arguments: ["../outside.png", "/etc/passwd", "link.png"])
    func filesOutsideTheDirectoryAreRefused(path: String) throws {
        let parent = try TemporaryDirectory()
        let root = parent.file("attachments")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try parent.write("outside.png", "secret")
        try FileManager.default.createSymbolicLink(atPath: root + "/link.png", withDestinationPath: parent.file("outside.png"))
        #expect {
            try LocalFileFetcher(root: root).read(path, maximumBytes: 100)
        } throws: { ($0 as? MediaFetchError)?.kind == .forbidden }
    }

    @Test func aMissingFileOrDirectoryIsUnreachable() throws {
        let directory = try TemporaryDirectory()
        #expect { try LocalFileFetcher(root: directory.path).read("none.png", maximumBytes: 100) } throws: {
            ($0 as? MediaFetchError)?.kind == .unreachable
        }
        #expect { try LocalFileFetcher(root: directory.path).read(".", maximumBytes: 100) } throws: {
            ($0 as? MediaFetchError)?.kind == .unreachable
        }
    }

    @Test func aFileAboveTheLimitIsNotRead() throws {
        let directory = try TemporaryDirectory()
        try directory.write("big.png", String(repeating: "x", count: 101))
        #expect { try LocalFileFetcher(root: directory.path).read("big.png", maximumBytes: 100) } throws: {
            ($0 as? MediaFetchError)?.kind == .tooLarge
        }
    }
}

@Suite struct HTTPClientTests {
    private func url(_ text: String) throws -> MediaLocation.WebURL {
        guard case .web(let url) = try MediaLocation.parse(text).get() else { throw FixtureError(description: "not a web URL") }
        return url
    }

    @Test func aBodyFramedByContentLengthIsReturned() throws {
        let server = try LoopbackHTTPServer(routes: ["/a.png": .ok(body: MagicBytes.png, contentType: "image/png")])
        defer { server.stop() }
        let response = try HTTPClient().get(try url(server.url("/a.png?v=1")), maximumBytes: 1000, timeout: .seconds(10))
        #expect(response.body == MagicBytes.png)
        #expect(response.contentType == "image/png")
        #expect(server.receivedTargets == ["/a.png?v=1"])
    }

    /// A host name goes through the bounded lookup (localhost comes from /etc/hosts, no network);
    /// when it also resolves to ::1, where nothing listens, the next address is tried.
    @Test func aHostNameIsResolvedAndEachAddressTried() throws {
        let server = try LoopbackHTTPServer(routes: ["/a.gif": .ok(body: MagicBytes.gif, contentType: "image/gif")])
        defer { server.stop() }
        let response = try HTTPClient().get(try url("http://localhost:\(server.port)/a.gif"), maximumBytes: 1000, timeout: .seconds(10))
        #expect(response.body == MagicBytes.gif)
    }

    @Test func aChunkedBodyIsReassembled() throws {
        let body = [UInt8]((0..<5000).map { UInt8($0 % 251) })
        let server = try LoopbackHTTPServer(routes: ["/c.gif": .ok(body: body, contentType: "image/gif", chunkSize: 777)])
        defer { server.stop() }
        #expect(try HTTPClient().get(try url(server.url("/c.gif")), maximumBytes: 10_000, timeout: .seconds(10)).body == body)
    }

    @Test func aBodyEndedByTheConnectionIsReturned() throws {
        let server = try LoopbackHTTPServer(routes: ["/u.gif": .okUntilClose(body: MagicBytes.gif)])
        defer { server.stop() }
        #expect(try HTTPClient().get(try url(server.url("/u.gif")), maximumBytes: 1000, timeout: .seconds(10)).body == MagicBytes.gif)
    }

    @Test func redirectsAreFollowed() throws {
        let server = try LoopbackHTTPServer(routes: [
            "/old.png": .redirect(301, location: "/middle.png"),
            "/middle.png": .redirect(302, location: "new.png"),
            "/new.png": .ok(body: MagicBytes.png, contentType: "image/png"),
        ])
        defer { server.stop() }
        #expect(try HTTPClient().get(try url(server.url("/old.png")), maximumBytes: 1000, timeout: .seconds(10)).body == MagicBytes.png)
        #expect(server.receivedTargets == ["/old.png", "/middle.png", "/new.png"])
    }

    @Test func aRedirectLoopStops() throws {
        let server = try LoopbackHTTPServer(routes: ["/loop.png": .redirect(302, location: "/loop.png")])
        defer { server.stop() }
        #expect { try HTTPClient().get(try url(server.url("/loop.png")), maximumBytes: 1000, timeout: .seconds(10)) } throws: {
            ($0 as? MediaFetchError)?.kind == .protocolError
        }
        #expect(server.receivedTargets.count == 4)
    }

    @Test func aStatusOtherThan200IsAFailure() throws {
        let server = try LoopbackHTTPServer(routes: [:])
        defer { server.stop() }
        #expect { try HTTPClient().get(try url(server.url("/missing.png")), maximumBytes: 1000, timeout: .seconds(10)) } throws: {
            ($0 as? MediaFetchError)?.kind == .httpStatus && ($0 as? MediaFetchError)?.message.contains("HTTP 404") == true
        }
    }

    @Test func anAnnouncedBodyAboveTheLimitIsRefusedBeforeDownloading() throws {
        let server = try LoopbackHTTPServer(routes: ["/huge.mp4": .announce(60_000_000)])
        defer { server.stop() }
        #expect { try HTTPClient().get(try url(server.url("/huge.mp4")), maximumBytes: 50_000_000, timeout: .seconds(10)) } throws: {
            ($0 as? MediaFetchError)?.kind == .tooLarge
        }
    }

    @Test func aBodyAboveTheLimitWithoutALengthIsCut() throws {
        let server = try LoopbackHTTPServer(routes: ["/big.gif": .ok(body: [UInt8](repeating: 7, count: 3000), contentType: "image/gif", chunkSize: 500)])
        defer { server.stop() }
        #expect { try HTTPClient().get(try url(server.url("/big.gif")), maximumBytes: 2000, timeout: .seconds(10)) } throws: {
            ($0 as? MediaFetchError)?.kind == .tooLarge
        }
    }

    /// Refused, not waited out: the error is the refusal's, not the deadline's. Port 1, where
    /// nothing listens (a port found free can be taken by another test before the connect).
    @Test func anUnreachablePortFailsAtOnce() throws {
        #expect { try HTTPClient().get(try url("http://127.0.0.1:1/a.png"), maximumBytes: 1000, timeout: .seconds(25)) } throws: {
            ($0 as? MediaFetchError)?.kind == .unreachable && ($0 as? MediaFetchError)?.message.contains("connection refused") == true
        }
    }

    @Test func aServerThatNeverAnswersTimesOutAtTheDeadline() throws {
        let server = try LoopbackHTTPServer(routes: ["/slow.png": .stall])
        defer { server.stop() }
        let started = ContinuousClock.now
        #expect { try HTTPClient().get(try url(server.url("/slow.png")), maximumBytes: 1000, timeout: .milliseconds(300)) } throws: {
            ($0 as? MediaFetchError)?.kind == .timedOut && ($0 as? MediaFetchError)?.message.contains("timed out after 0.3 s") == true
        }
        let elapsed = started.duration(to: .now)
        #expect(elapsed >= .milliseconds(300))
        #expect(elapsed < .seconds(10))
    }

    @Test func httpsIsReportedAsUnsupported() throws {
        #expect { try HTTPClient().get(try url("https://127.0.0.1:1/a.png"), maximumBytes: 1000, timeout: .seconds(1)) } throws: {
            ($0 as? MediaFetchError)?.kind == .unsupported
        }
    }
}
