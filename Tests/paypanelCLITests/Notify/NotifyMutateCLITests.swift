import Foundation
import Testing
import TestSupport

@Suite struct NotifyMutateCLITests {
    private func mutate(_ file: String, _ options: [String] = [], in directory: TemporaryDirectory) throws -> (CLIResult, [String: Any]) {
        let result = try CLIRunner.run(["notify", "mutate", file, "--json"] + options, in: directory)
        return (result, result.status == 0 ? try NotifyCLI.object(result) : [:])
    }

    @Test(arguments: [
        ("media-image.json", "image", "image/png", "Today only"),
        ("media-video.json", "video", "video/mp4", "Watch the clip"),
        ("media-gif.json", "gif", "image/gif", "Animated"),
    ])
    func fixturesGetTheirAttachment(name: String, identifier: String, type: String, subtitle: String) throws {
        let directory = try TemporaryDirectory()
        let (result, delivered) = try mutate(NotifyCLI.fixture(name), ["--attachments", NotifyCLI.attachments], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(delivered["subtitle"] as? String == subtitle)
        let attachment = try #require(delivered["attachment"] as? [String: Any])
        #expect(attachment["identifier"] as? String == identifier)
        #expect(attachment["type"] as? String == type)
        #expect((attachment["file"] as? String)?.hasPrefix(NotifyCLI.attachments) == true)
        #expect(delivered["fallbackReason"] is NSNull)
    }

    @Test func onCellularTheVideoFixtureGetsItsGif() throws {
        let directory = try TemporaryDirectory()
        let (_, delivered) = try mutate(NotifyCLI.fixture("media-video.json"), ["--attachments", NotifyCLI.attachments, "--network", "cellular"], in: directory)
        #expect((delivered["attachment"] as? [String: Any])?["identifier"] as? String == "gif")
    }

    @Test func aTextFileNamedPngFallsBack() throws {
        let directory = try TemporaryDirectory()
        let (result, delivered) = try mutate(NotifyCLI.fixture("media-fake-png.json"), ["--attachments", NotifyCLI.attachments], in: directory)
        #expect(result.status == 0)
        #expect(delivered["attachment"] is NSNull)
        #expect(delivered["subtitle"] as? String == "Looks like an image")
        #expect(delivered["fallbackCode"] as? String == "type_mismatch")
        #expect(delivered["fallbackReason"] as? String == "imageUrl not-really.png is named .png but its content is text, not image/png")
    }

    @Test func aMalformedPayloadStringDeliversTheOriginalWithTheReason() throws {
        let directory = try TemporaryDirectory()
        let (result, delivered) = try mutate(NotifyCLI.fixture("media-malformed.json"), [], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(delivered["title"] as? String == "Weekend offer")
        #expect(delivered["body"] as? String == "Tap to see today's deal.")
        #expect(delivered["fallbackCode"] as? String == "payload_malformed")
        #expect(result.stderrLines.first?.hasPrefix("warning: payload: the string is not valid JSON") == true)
    }

    @Test func anHTTPImageIsDownloadedIntoTheAttachmentsDirectory() throws {
        let png = Array(try Data(contentsOf: URL(fileURLWithPath: NotifyCLI.attachments + "/offer.png")))
        let server = try LoopbackHTTPServer(routes: ["/offer.png": .ok(body: png, contentType: "image/png")])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let payload = try NotifyCLI.writeMediaPayload(["subTitle": "From the web", "imageUrl": server.url("/offer.png")], in: directory)
        let (result, delivered) = try mutate(payload, ["--attachments", directory.path], in: directory)
        #expect(result.status == 0, "\(result)")
        let attachment = try #require(delivered["attachment"] as? [String: Any])
        #expect(attachment["source"] as? String == server.url("/offer.png"))
        let file = try #require(attachment["file"] as? String)
        #expect(file.hasPrefix(directory.path))
        #expect(FileManager.default.contents(atPath: file).map(Array.init) == png)
        #expect(server.receivedTargets == ["/offer.png"])
    }

    /// A refused connection falls back at once with its own reason, not the deadline's. Port 1:
    /// nothing listens there (a port picked as free and closed again can be taken by another
    /// test before the fetch, which made this test flaky).
    @Test func anUnreachablePortFallsBackWithoutWaitingForTheDeadline() throws {
        let directory = try TemporaryDirectory()
        let payload = try NotifyCLI.writeMediaPayload(["subTitle": "Kept", "imageUrl": "http://127.0.0.1:1/offer.png"], in: directory)
        let (result, delivered) = try mutate(payload, ["--attachments", directory.path], in: directory)  // default 25 s deadline
        #expect(result.status == 0, "\(result)")
        #expect(delivered["attachment"] is NSNull)
        #expect(delivered["subtitle"] as? String == "Kept")
        #expect(delivered["fallbackCode"] as? String == "fetch_unreachable")
        #expect((delivered["fallbackReason"] as? String)?.contains("could not connect to 127.0.0.1:1: connection refused") == true,
                "\(delivered["fallbackReason"] ?? "none")")
    }

    @Test func aServerThatNeverAnswersIsCutAtTheDeadline() throws {
        let server = try LoopbackHTTPServer(routes: ["/slow.png": .stall])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let payload = try NotifyCLI.writeMediaPayload(["imageUrl": server.url("/slow.png")], in: directory)
        let (result, delivered) = try mutate(payload, ["--attachments", directory.path, "--deadline", "0.5"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(delivered["fallbackCode"] as? String == "fetch_timed_out")
        #expect((delivered["fallbackReason"] as? String)?.contains("timed out after 0.5 s") == true)
    }

    @Test(arguments: [
        // https goes through URLSession now: a closed port is unreachable like any other.
        ("https://127.0.0.1:1/a.png", "fetch_unreachable"),
        ("../escape.png", "fetch_forbidden"),
        ("missing.png", "fetch_unreachable"),
        ("http://127.0.0.1:1/a.webp", "unsupported_type"),
    ])
    func otherFailuresFallBackWithTheirCode(location: String, code: String) throws {
        let directory = try TemporaryDirectory()
        let payload = try NotifyCLI.writeMediaPayload(["imageUrl": location], in: directory)
        let (result, delivered) = try mutate(payload, ["--attachments", directory.path], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(delivered["fallbackCode"] as? String == code, "\(result)")
    }

    @Test func withoutMutableContentTheExtensionDoesNotRun() throws {
        let directory = try TemporaryDirectory()
        let (_, delivered) = try mutate(NotifyCLI.fixture("reveal.json"), [], in: directory)
        #expect(delivered["extensionRan"] as? Bool == false)
        #expect(delivered["body"] as? String == "Order A1001: 10.00 USD paid with Visa •••• 4242.")
    }

    @Test func anInvalidPayloadIsRefused() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "mutate", NotifyCLI.fixture("invalid-types.json")], in: directory)
        #expect(result.status == 1)
        #expect(result.stderrLines.first == "error: aps.alert.title: must be a string, not a number")
    }

    @Test(arguments: [["--deadline", "31"], ["--deadline", "0"], ["--deadline", "1e1"], ["--network", "5g"]])
    func badOptionsAreUsageErrors(options: [String]) throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "mutate", NotifyCLI.fixture("media-image.json")] + options, in: directory)
        #expect(result.status == 64, "\(result)")
    }
}
