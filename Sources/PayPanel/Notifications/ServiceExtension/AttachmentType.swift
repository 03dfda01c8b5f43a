/// The file types a notification attachment may have, with the size limits iOS applies
/// (`UNNotificationAttachment`): images (PNG, JPEG, GIF) up to 10 MB, video (MPEG-4, MPEG, AVI)
/// up to 50 MB, audio (MP3, WAV, AIFF, M4A) up to 5 MB. MB is read as 1,000,000 bytes, the
/// stricter reading, so nothing kept here is refused by a device.
package enum AttachmentType: String, Sendable, CaseIterable {
    case png, jpeg, gif
    case mp4, mpeg, avi
    case mp3, wav, aiff, m4a

    /// What a type is, for the size limit and for which `payload` key may carry it.
    package enum Kind: String, Sendable {
        case image, video, audio

        /// The largest attachment of this kind a device accepts, in bytes.
        package var maximumBytes: Int {
            switch self {
            case .image: 10_000_000
            case .video: 50_000_000
            case .audio: 5_000_000
            }
        }
    }

    package var kind: Kind {
        switch self {
        case .png, .jpeg, .gif: .image
        case .mp4, .mpeg, .avi: .video
        case .mp3, .wav, .aiff, .m4a: .audio
        }
    }

    /// The MIME type, for messages and the JSON output.
    package var mimeType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .mp4: "video/mp4"
        case .mpeg: "video/mpeg"
        case .avi: "video/x-msvideo"
        case .mp3: "audio/mpeg"
        case .wav: "audio/wav"
        case .aiff: "audio/aiff"
        case .m4a: "audio/mp4"
        }
    }

    /// The file extensions that declare this type (lower case, without the dot).
    package var fileExtensions: [String] {
        switch self {
        case .png: ["png"]
        case .jpeg: ["jpg", "jpeg"]
        case .gif: ["gif"]
        case .mp4: ["mp4", "m4v"]
        case .mpeg: ["mpg", "mpeg"]
        case .avi: ["avi"]
        case .mp3: ["mp3"]
        case .wav: ["wav"]
        case .aiff: ["aif", "aiff", "aifc"]
        case .m4a: ["m4a"]
        }
    }

    /// The type a file extension declares (`jpg` → jpeg), or nil for anything else.
    package init?(fileExtension: String) {
        let lowered = fileExtension.lowercased()
        guard let match = AttachmentType.allCases.first(where: { $0.fileExtensions.contains(lowered) }) else { return nil }
        self = match
    }

    /// The type the content really is, from its first bytes ("magic numbers"), or nil when it
    /// is none of the attachment types. The name of a file proves nothing; its bytes do.
    package static func sniff(_ bytes: some Collection<UInt8>) -> AttachmentType? {
        let head = Array(bytes.prefix(16))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return .gif }
        if starts(ascii("ftyp"), at: 4) {
            if starts(ascii("M4A "), at: 8) || starts(ascii("M4B "), at: 8) { return .m4a }
            if starts(ascii("qt  "), at: 8) { return nil }  // QuickTime .mov: not an attachment type
            return .mp4
        }
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .mpeg }
        if starts(ascii("RIFF")) && starts(ascii("AVI "), at: 8) { return .avi }
        if starts(ascii("RIFF")) && starts(ascii("WAVE"), at: 8) { return .wav }
        if starts(ascii("FORM")) && (starts(ascii("AIFF"), at: 8) || starts(ascii("AIFC"), at: 8)) { return .aiff }
        if starts(ascii("ID3")) { return .mp3 }
        if head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 { return .mp3 }  // MPEG audio frame sync
        return nil
    }

    /// A short description of unrecognised content for messages: "text", or its first bytes.
    static func describeUnknown(_ bytes: some Collection<UInt8>) -> String {
        let head = Array(bytes.prefix(8))
        if head.isEmpty { return "an empty file" }
        let printable = bytes.prefix(512).allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if printable { return "text" }
        return "unrecognised bytes " + head.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined(separator: " ")
    }
}

/// The keys of the Getui `payload` string that carry media, in the order the extension picks
/// them: an image, else a video (on Wi-Fi only), else a GIF.
package enum MediaSlot: String, Sendable, CaseIterable {
    case image, video, gif

    /// The key in the payload string (`imageUrl`).
    package var key: String {
        switch self {
        case .image: "imageUrl"
        case .video: "videoUrl"
        case .gif: "gifUrl"
        }
    }

    /// The types this key may carry: `imageUrl` any image, `videoUrl` any video, `gifUrl` a GIF.
    package var allowedTypes: [AttachmentType] {
        switch self {
        case .image: [.png, .jpeg, .gif]
        case .video: [.mp4, .mpeg, .avi]
        case .gif: [.gif]
        }
    }

    /// The most bytes worth fetching for this key: the limit of its kind.
    package var maximumBytes: Int {
        allowedTypes.map(\.kind.maximumBytes).max() ?? 0
    }

    /// The location this key holds in `media`.
    package func location(in media: MediaPayload) -> String? {
        switch self {
        case .image: media.imageURL
        case .video: media.videoURL
        case .gif: media.gifURL
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
