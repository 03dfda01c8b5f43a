import PayPanel
import Testing

@Suite struct AttachmentTypeTests {
    @Test(arguments: [
        (MagicBytes.png, AttachmentType.png), (MagicBytes.jpeg, .jpeg), (MagicBytes.gif, .gif), (MagicBytes.mp4, .mp4),
        (MagicBytes.mpeg, .mpeg), (MagicBytes.avi, .avi), (MagicBytes.wav, .wav), (MagicBytes.aiff, .aiff),
        (MagicBytes.mp3, .mp3), (MagicBytes.m4a, .m4a),
    ])
    func contentIsRecognisedByItsMagicBytes(bytes: [UInt8], type: AttachmentType) {
        #expect(AttachmentType.sniff(bytes) == type)
    }

    @Test(arguments: [Array("<html>hello".utf8), [], [0x89, 0x50], Array("RIFF\0\0\0\0WEBP".utf8), [0, 0, 0, 20] + Array("ftypqt  ".utf8)])
    func otherContentIsNotAnAttachmentType(bytes: [UInt8]) {
        #expect(AttachmentType.sniff(bytes) == nil)
    }

    @Test func extensionsDeclareTypes() {
        #expect(AttachmentType(fileExtension: "JPG") == .jpeg)
        #expect(AttachmentType(fileExtension: "jpeg") == .jpeg)
        #expect(AttachmentType(fileExtension: "m4v") == .mp4)
        #expect(AttachmentType(fileExtension: "aif") == .aiff)
        #expect(AttachmentType(fileExtension: "webp") == nil)
    }

    @Test func sizeLimitsFollowTheKind() {
        #expect(AttachmentType.png.kind.maximumBytes == 10_000_000)
        #expect(AttachmentType.avi.kind.maximumBytes == 50_000_000)
        #expect(AttachmentType.mp3.kind.maximumBytes == 5_000_000)
        #expect(MediaSlot.image.maximumBytes == 10_000_000)
        #expect(MediaSlot.video.maximumBytes == 50_000_000)
        #expect(MediaSlot.gif.allowedTypes == [.gif])
    }

    @Test(arguments: ["offer.png", "spinner.gif", "clip.mp4"])
    func theAttachmentFixturesAreWhatTheirNamesSay(name: String) throws {
        let bytes = try LocalFileFetcher(root: NotificationFixtures.attachmentsDirectory).read(name, maximumBytes: 1000).bytes
        let declared = AttachmentType(fileExtension: String(name.split(separator: ".").last!))
        #expect(AttachmentType.sniff(bytes) == declared)
    }

    @Test func theFakePngFixtureIsText() throws {
        let bytes = try LocalFileFetcher(root: NotificationFixtures.attachmentsDirectory).read("not-really.png", maximumBytes: 1000).bytes
        #expect(AttachmentType.sniff(bytes) == nil)
    }
}
