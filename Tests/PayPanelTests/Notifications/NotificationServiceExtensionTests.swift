import Foundation
import PayPanel
import Testing
import TestSupport

@Suite struct NotificationServiceExtensionTests {
    /// Where downloads go unless a test names its own store: a temporary directory removed with
    /// the test (a made-up path such as /nonexistent-store is writable when tests run as root).
    private let defaultStore: TemporaryDirectory

    init() throws {
        defaultStore = try TemporaryDirectory("paypanel-attachments")
    }

    private func serviceExtension(
        _ fetcher: ScriptedFetcher, network: NotificationServiceExtension.Network = .wifi,
        store: String? = nil, clock: ManualMonotonicClock = ManualMonotonicClock()
    ) -> NotificationServiceExtension {
        NotificationServiceExtension(fetcher: fetcher, store: AttachmentStore(directory: store ?? defaultStore.path),
                                     network: network, deadline: .seconds(25), clock: clock)
    }

    private func media(_ object: [String: String]) -> String {
        JSONWriter.string(.object(JSONObject(object.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.string($0.value)) })))
    }

    @Test func withoutMutableContentTheExtensionDoesNotRun() {
        let fetcher = ScriptedFetcher([:])
        let payload = NotificationFixtures.mediaPayload(media(["subTitle": "New", "imageUrl": "a.png"]), mutable: false)
        let delivered = serviceExtension(fetcher).mutate(payload)
        #expect(!delivered.extensionRan)
        #expect(delivered.content.subtitle == "Original")
        #expect(delivered.attachment == nil && delivered.fallback == nil)
        #expect(fetcher.requestedLocations.isEmpty)
    }

    @Test func theImageIsPreferredAndTheSubtitleIsSet() throws {
        let fetcher = ScriptedFetcher(["http://h/a.png": .bytes(MagicBytes.png), "http://h/g.gif": .bytes(MagicBytes.gif)])
        let store = try TemporaryDirectory()
        let payload = NotificationFixtures.mediaPayload(media(["subTitle": "Today only", "imageUrl": "http://h/a.png", "gifUrl": "http://h/g.gif"]))
        let delivered = serviceExtension(fetcher, store: store.path).mutate(payload)
        #expect(delivered.content == NotificationContent(title: "Offer", subtitle: "Today only", body: "Body text"))
        #expect(delivered.attachment?.identifier == "image")
        #expect(delivered.attachment?.type == .png)
        #expect(delivered.fallback == nil)
        #expect(fetcher.requestedLocations == ["http://h/a.png"])
        // The download was saved in the store, under a name the sender does not choose.
        let file = delivered.attachment?.file ?? ""
        #expect(file.hasPrefix(store.path) && file.hasSuffix(".png") && !file.contains("a.png"))
        #expect(FileManager.default.contents(atPath: file).map(Array.init) == MagicBytes.png)
    }

    @Test func videoIsChosenOnWifiWhenThereIsNoImage() {
        let fetcher = ScriptedFetcher(["v.mp4": .bytes(MagicBytes.mp4), "g.gif": .bytes(MagicBytes.gif)])
        let delivered = serviceExtension(fetcher).mutate(NotificationFixtures.mediaPayload(media(["videoUrl": "v.mp4", "gifUrl": "g.gif"])))
        #expect(delivered.attachment?.identifier == "video")
        #expect(delivered.attachment?.type == .mp4)
    }

    @Test func onCellularTheVideoIsSkippedForTheGif() {
        let fetcher = ScriptedFetcher(["v.mp4": .bytes(MagicBytes.mp4), "g.gif": .bytes(MagicBytes.gif)])
        let delivered = serviceExtension(fetcher, network: .cellular)
            .mutate(NotificationFixtures.mediaPayload(media(["videoUrl": "v.mp4", "gifUrl": "g.gif"])))
        #expect(delivered.attachment?.identifier == "gif")
        #expect(fetcher.requestedLocations == ["g.gif"])
    }

    @Test func onCellularAVideoAloneFallsBackWithTheReason() {
        let fetcher = ScriptedFetcher(["v.mp4": .bytes(MagicBytes.mp4)])
        let delivered = serviceExtension(fetcher, network: .cellular)
            .mutate(NotificationFixtures.mediaPayload(media(["subTitle": "Clip", "videoUrl": "v.mp4"])))
        #expect(delivered.attachment == nil)
        #expect(delivered.content.subtitle == "Clip")
        #expect(delivered.fallback?.code == "video_needs_wifi")
        #expect(fetcher.requestedLocations.isEmpty)
    }

    @Test func aMalformedStringDeliversTheOriginalContentWithTheReason() {
        let fetcher = ScriptedFetcher([:])
        let delivered = serviceExtension(fetcher).mutate(NotificationFixtures.mediaPayload(#"{"imageUrl": a.png"#))
        #expect(delivered.content == NotificationContent(title: "Offer", subtitle: "Original", body: "Body text"))
        #expect(delivered.attachment == nil)
        #expect(delivered.fallback?.code == "payload_malformed")
        #expect(delivered.fallback?.reason.contains("not valid JSON") == true)
    }

    @Test func aReadableSubtitleSurvivesABrokenMember() {
        let fetcher = ScriptedFetcher([:])
        let delivered = serviceExtension(fetcher).mutate(NotificationFixtures.mediaPayload(#"{"subTitle":"Kept","imageUrl":5}"#))
        #expect(delivered.content.subtitle == "Kept")
        #expect(delivered.fallback?.code == "payload_malformed")
        #expect(delivered.fallback?.reason.contains("payload.imageUrl") == true)
    }

    @Test func noMediaMeansNoFallback() {
        let delivered = serviceExtension(ScriptedFetcher([:])).mutate(NotificationFixtures.mediaPayload(#"{"subTitle":"Only text"}"#))
        #expect(delivered.content.subtitle == "Only text")
        #expect(delivered.attachment == nil && delivered.fallback == nil && delivered.extensionRan)
    }

    @Test(arguments: [
        ("a.png", MagicBytes.gif, "type_mismatch", "named as image/png but its content is image/gif"),
        ("a.png", Array("not an image".utf8), "type_mismatch", "its content is text"),
        ("a.jpg", MagicBytes.png, "type_mismatch", "named as image/jpeg"),
    ])
    func theExtensionAndTheRealTypeMustAgree(location: String, bytes: [UInt8], code: String, reason: String) {
        let delivered = serviceExtension(ScriptedFetcher([location: .bytes(bytes)]))
            .mutate(NotificationFixtures.mediaPayload(media(["imageUrl": location])))
        #expect(delivered.attachment == nil)
        #expect(delivered.fallback?.code == code)
        #expect(delivered.fallback?.reason.contains(reason) == true, "\(delivered.fallback?.reason ?? "")")
    }

    @Test(arguments: [
        (["imageUrl": "a.webp"], "unsupported_type", "the extension .webp is not an attachment type"),
        (["imageUrl": "http://h/download?id=3"], "unsupported_type", "it has no file extension"),
        (["imageUrl": "a.mp4"], "wrong_kind_for_key", "imageUrl carries .png, .jpg, .jpeg or .gif"),
        (["gifUrl": "a.png"], "wrong_kind_for_key", "gifUrl carries .gif"),
        (["videoUrl": "a.mp3"], "wrong_kind_for_key", "videoUrl carries"),
    ])
    func aWrongNameFailsBeforeAnythingIsFetched(object: [String: String], code: String, reason: String) {
        let fetcher = ScriptedFetcher([:])
        let delivered = serviceExtension(fetcher).mutate(NotificationFixtures.mediaPayload(media(object)))
        #expect(delivered.fallback?.code == code)
        #expect(delivered.fallback?.reason.contains(reason) == true, "\(delivered.fallback?.reason ?? "")")
        #expect(fetcher.requestedLocations.isEmpty)
    }

    @Test func anImageAboveTenMegabytesIsRefused() {
        let big = MagicBytes.png + [UInt8](repeating: 0, count: 10_000_001 - MagicBytes.png.count)
        let delivered = serviceExtension(ScriptedFetcher(["a.png": .bytes(big)]))
            .mutate(NotificationFixtures.mediaPayload(media(["imageUrl": "a.png"])))
        #expect(delivered.fallback?.code == "attachment_too_large")
    }

    @Test func anImageOfExactlyTenMegabytesIsKept() throws {
        let exact = MagicBytes.png + [UInt8](repeating: 0, count: 10_000_000 - MagicBytes.png.count)
        let store = try TemporaryDirectory()
        let delivered = serviceExtension(ScriptedFetcher(["a.png": .bytes(exact)]), store: store.path)
            .mutate(NotificationFixtures.mediaPayload(media(["imageUrl": "a.png"])))
        #expect(delivered.attachment?.byteCount == 10_000_000)
    }

    @Test(arguments: [MediaFetchError.Kind.timedOut, .unreachable, .httpStatus, .unsupported, .forbidden, .protocolError])
    func aFetchFailureDeliversTheBestAttemptWithItsCode(kind: MediaFetchError.Kind) {
        let fetcher = ScriptedFetcher(["http://h/a.png": .failure(MediaFetchError(kind, "what happened"))])
        let delivered = serviceExtension(fetcher).mutate(NotificationFixtures.mediaPayload(media(["subTitle": "S", "imageUrl": "http://h/a.png"])))
        #expect(delivered.content.subtitle == "S")
        #expect(delivered.attachment == nil)
        #expect(delivered.fallback == MutationFallback(code: kind.rawValue, reason: "imageUrl: what happened"))
    }

    @Test func aFetchThatOverrunsTheDeadlineIsDiscarded() {
        let clock = ManualMonotonicClock()
        let fetcher = ScriptedFetcher(["a.png": .slow(MagicBytes.png, seconds: 26, clock: clock)])
        let delivered = serviceExtension(fetcher, clock: clock).mutate(NotificationFixtures.mediaPayload(media(["imageUrl": "a.png"])))
        #expect(delivered.attachment == nil)
        #expect(delivered.fallback?.code == "deadline_exceeded")
        #expect(delivered.fallback?.reason.contains("took 26 s, past the 25 s deadline") == true)
    }

    @Test func localFixturesAreUsedInPlace() throws {
        let store = defaultStore.file("store")
        let serviceExtension = NotificationServiceExtension(
            fetcher: StandardMediaFetcher(attachmentsDirectory: NotificationFixtures.attachmentsDirectory),
            store: AttachmentStore(directory: store))
        let delivered = serviceExtension.mutate(try NotificationFixtures.payload("media-image.json"))
        #expect(delivered.attachment?.file.hasSuffix("fixtures/attachments/offer.png") == true)
        #expect(delivered.content.subtitle == "Today only")
        let fake = serviceExtension.mutate(try NotificationFixtures.payload("media-fake-png.json"))
        #expect(fake.fallback?.code == "type_mismatch")
        #expect(!FileManager.default.fileExists(atPath: store))  // nothing was copied into the store
    }

    @Test func theJSONFormHasEveryField() {
        let delivered = DeliveredNotification(content: NotificationContent(title: "T", body: "B"), attachment: nil,
                                              fallback: MutationFallback(code: "x", reason: "why"), extensionRan: true)
        #expect(JSONWriter.string(delivered.json) == #"{"title":"T","subtitle":null,"body":"B","attachment":null,"fallbackReason":"why","fallbackCode":"x","extensionRan":true}"#)
    }
}
