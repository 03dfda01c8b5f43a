/// The Getui-style `payload` key: a JSON object *inside a string*, e.g.
/// `"payload": "{\"subTitle\":\"Today only\",\"imageUrl\":\"https://…/offer.png\"}"`.
/// The service extension reads it to set the subtitle and attach media.
public struct MediaPayload: Sendable, Equatable {
    /// Replaces the alert's subtitle.
    public var subtitle: String?
    public var imageURL: String?
    public var videoURL: String?
    public var gifURL: String?

    public init(subtitle: String? = nil, imageURL: String? = nil, videoURL: String? = nil, gifURL: String? = nil) {
        self.subtitle = subtitle
        self.imageURL = imageURL
        self.videoURL = videoURL
        self.gifURL = gifURL
    }

    /// The string's keys, as Getui spells them.
    public static let knownKeys: Set<String> = ["subTitle", "imageUrl", "videoUrl", "gifUrl"]

    /// The JSON string this payload is sent as (compact JSON of its members).
    public var encodedString: String {
        var object = JSONObject()
        if let subtitle { object["subTitle"] = .string(subtitle) }
        if let imageURL { object["imageUrl"] = .string(imageURL) }
        if let videoURL { object["videoUrl"] = .string(videoURL) }
        if let gifURL { object["gifUrl"] = .string(gifURL) }
        return JSONWriter.string(.object(object))
    }
}

/// What a payload's `payload` key held.
public enum MediaPayloadField: Sendable, Equatable {
    /// No `payload` key.
    case absent
    /// A string holding a well-formed media object.
    case parsed(MediaPayload)
    /// Present but unusable: not a string, not JSON, not an object, or with wrongly typed
    /// members. `usable` keeps what could still be read (a valid subtitle beside a broken URL),
    /// `problems` says what was wrong, each with its path.
    case malformed(usable: MediaPayload, problems: [ValidationIssue])

    /// Whatever could be read, for a best attempt.
    public var usable: MediaPayload? {
        switch self {
        case .absent: nil
        case .parsed(let media): media
        case .malformed(let usable, _): usable
        }
    }
}

/// Reads the Getui `payload` key. Never throws and never traps: every problem is reported with
/// its path (`payload`, `payload.imageUrl`), because the string comes from a push sender and a
/// notification must still be delivered when it is broken.
package enum MediaPayloadReader {
    /// Reads `value` (the member at `path`, normally `payload`), recording problems in `report`.
    package static func read(_ value: JSONValue?, at path: FieldPath, into report: inout ValidationReport)
        -> MediaPayloadField
    {
        guard let value, value != .null else { return .absent }
        var problems = ValidationReport()
        let usable = read(value, at: path, problems: &problems)
        report.merge(problems)
        guard problems.isValid else { return .malformed(usable: usable, problems: problems.errors) }
        return .parsed(usable)
    }

    private static func read(_ value: JSONValue, at path: FieldPath, problems: inout ValidationReport) -> MediaPayload {
        guard let text = value.stringValue else {
            let hint = value.objectValue != nil ? ": Getui sends it as a JSON object encoded in a string; encode the object as a string" : ""
            problems.error(path, "must be a string holding a JSON object, not \(value.typeDescription)\(hint)")
            return MediaPayload()
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser().parse(text)
        } catch {
            problems.error(path, "the string is not valid JSON: \(error.message)")
            return MediaPayload()
        }
        guard let object = parsed.objectValue else {
            problems.error(path, "the string must hold a JSON object with subTitle, imageUrl, videoUrl or gifUrl, not \(parsed.typeDescription)")
            return MediaPayload()
        }
        var reader = JSONFieldReader()
        var media = MediaPayload()
        media.subtitle = reader.string(object["subTitle"], at: path.appending("subTitle"), required: false)
        media.imageURL = mediaURL(object["imageUrl"], at: path.appending("imageUrl"), reader: &reader)
        media.videoURL = mediaURL(object["videoUrl"], at: path.appending("videoUrl"), reader: &reader)
        media.gifURL = mediaURL(object["gifUrl"], at: path.appending("gifUrl"), reader: &reader)
        for key in object.keys where !JSONMemberName.isOne(of: MediaPayload.knownKeys, key) {
            if let spelling = MediaPayload.knownKeys.first(where: { $0.lowercased() == key.lowercased() }) {
                reader.report.warning(path.appending(key), "unknown key, ignored: the key is spelled \(spelling)")
            } else {
                reader.report.warning(path.appending(key), "unknown key, ignored")
            }
        }
        problems.merge(reader.report)
        return media
    }

    /// A media location: a non-empty string that is a path, a `file://` URL or an `http(s)://` URL.
    private static func mediaURL(_ value: JSONValue?, at path: FieldPath, reader: inout JSONFieldReader) -> String? {
        guard let text = reader.string(value, at: path, required: false, nonEmpty: true) else { return nil }
        switch MediaLocation.parse(text) {
        case .success:
            return text
        case .failure(let problem):
            reader.report.error(path, problem.message)
            return nil
        }
    }
}
