/// Reads and type-checks the standard `aps` dictionary, recording every problem with its path
/// (`aps.badge`, `aps.alert.title-loc-args[1]`). APNs itself forwards wrongly typed keys and the
/// device then ignores them silently, so PayPanel rejects them before sending.
struct APSReader {
    var reader = JSONFieldReader()

    /// Keys APNs defines in `aps`; anything else draws a warning.
    static let knownKeys: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
        "target-content-id", "interruption-level", "relevance-score", "filter-criteria",
        // Live Activity keys: type-checked, otherwise not used by PayPanel.
        "timestamp", "event", "content-state", "stale-date", "dismissal-date", "attributes-type", "attributes",
    ]

    static let alertKeys: Set<String> = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args", "subtitle-loc-key",
        "subtitle-loc-args", "loc-key", "loc-args", "action-loc-key",
    ]

    mutating func read(_ object: JSONObject, at path: FieldPath) -> APS {
        var aps = APS()
        aps.alert = alert(object["alert"], at: path.appending("alert"))
        if let badge = reader.integer(object["badge"], at: path.appending("badge"), required: false) {
            if badge < 0 {
                reader.report.error(path.appending("badge"), "must be 0 or more (0 removes the badge), not \(SensitiveDigits.redacted(String(badge))))")
            } else {
                aps.badge = badge
            }
        }
        aps.sound = sound(object["sound"], at: path.appending("sound"))
        aps.threadID = reader.string(object["thread-id"], at: path.appending("thread-id"), required: false, nonEmpty: true)
        aps.category = reader.string(object["category"], at: path.appending("category"), required: false, nonEmpty: true)
        aps.contentAvailable = flag(object["content-available"], at: path.appending("content-available"))
        aps.mutableContent = flag(object["mutable-content"], at: path.appending("mutable-content"))
        aps.targetContentID = reader.string(object["target-content-id"], at: path.appending("target-content-id"), required: false)
        if let level = reader.string(object["interruption-level"], at: path.appending("interruption-level"), required: false) {
            if let parsed = InterruptionLevel(rawValue: level) {
                aps.interruptionLevel = parsed
            } else {
                reader.report.error(path.appending("interruption-level"),
                    "\(JSONWriter.quoted(level)) is not an interruption level: use one of \(InterruptionLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        aps.relevanceScore = fraction(object["relevance-score"], at: path.appending("relevance-score"))
        aps.filterCriteria = reader.string(object["filter-criteria"], at: path.appending("filter-criteria"), required: false)
        checkLiveActivityKeys(object, at: path)
        reader.warnUnknownKeys(object, known: APSReader.knownKeys, at: path)
        checkCombinations(aps, at: path)
        return aps
    }

    /// `alert` is a string (the body) or a dictionary.
    private mutating func alert(_ value: JSONValue?, at path: FieldPath) -> NotificationAlert? {
        guard let value, value != .null else { return nil }
        if let body = value.stringValue { return NotificationAlert(body: body) }
        guard let object = value.objectValue else {
            reader.report.error(path, "must be a string (the body) or an object with title, subtitle and body, not \(value.typeDescription)")
            return nil
        }
        var alert = NotificationAlert()
        alert.title = reader.string(object["title"], at: path.appending("title"), required: false)
        alert.subtitle = reader.string(object["subtitle"], at: path.appending("subtitle"), required: false)
        alert.body = reader.string(object["body"], at: path.appending("body"), required: false)
        alert.launchImage = reader.string(object["launch-image"], at: path.appending("launch-image"), required: false)
        alert.titleLocKey = reader.string(object["title-loc-key"], at: path.appending("title-loc-key"), required: false)
        alert.titleLocArgs = strings(object["title-loc-args"], at: path.appending("title-loc-args"))
        alert.subtitleLocKey = reader.string(object["subtitle-loc-key"], at: path.appending("subtitle-loc-key"), required: false)
        alert.subtitleLocArgs = strings(object["subtitle-loc-args"], at: path.appending("subtitle-loc-args"))
        alert.locKey = reader.string(object["loc-key"], at: path.appending("loc-key"), required: false)
        alert.locArgs = strings(object["loc-args"], at: path.appending("loc-args"))
        _ = reader.string(object["action-loc-key"], at: path.appending("action-loc-key"), required: false)
        reader.warnUnknownKeys(object, known: APSReader.alertKeys, at: path)
        let pairs: [(args: [String]?, key: String?, argsName: String, keyName: String)] = [
            (alert.titleLocArgs, alert.titleLocKey, "title-loc-args", "title-loc-key"),
            (alert.subtitleLocArgs, alert.subtitleLocKey, "subtitle-loc-args", "subtitle-loc-key"),
            (alert.locArgs, alert.locKey, "loc-args", "loc-key"),
        ]
        for pair in pairs where pair.args != nil && pair.key == nil {
            reader.report.warning(path.appending(pair.argsName), "has no effect without \(pair.keyName)")
        }
        return alert
    }

    /// `sound` is a file name, or `{critical, name, volume}` for critical alerts.
    private mutating func sound(_ value: JSONValue?, at path: FieldPath) -> NotificationSound? {
        guard let value, value != .null else { return nil }
        if let name = value.stringValue { return NotificationSound(name: name) }
        guard let object = value.objectValue else {
            reader.report.error(path, "must be a sound name or an object with critical, name and volume, not \(value.typeDescription)")
            return nil
        }
        let name = reader.string(object["name"], at: path.appending("name"))
        let critical = flag(object["critical"], at: path.appending("critical"))
        let volume = fraction(object["volume"], at: path.appending("volume"))
        reader.warnUnknownKeys(object, known: ["critical", "name", "volume"], at: path)
        return name.map { NotificationSound(name: $0, critical: critical, volume: volume) }
    }

    /// An array of strings (`loc-args`).
    private mutating func strings(_ value: JSONValue?, at path: FieldPath) -> [String]? {
        guard let elements = reader.array(value, at: path, required: false) else { return nil }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            if let text = reader.string(element, at: path.appending(index: index)) { result.append(text) }
        }
        return result.count == elements.count ? result : nil
    }

    /// APNs flags are the number 1 (0 is accepted and means off); `true` is a common mistake.
    private mutating func flag(_ value: JSONValue?, at path: FieldPath) -> Bool {
        guard let value, value != .null else { return false }
        if let flag = value.boolValue {
            reader.report.error(path, "must be the number 1 (or 0), not \(flag): APNs does not accept a JSON boolean here")
            return false
        }
        guard let number = reader.integer(value, at: path) else { return false }
        guard number == 0 || number == 1 else {
            reader.report.error(path, "must be 1 (or 0), not \(SensitiveDigits.redacted(String(number)))")
            return false
        }
        return number == 1
    }

    /// A number from 0 to 1 (`relevance-score`, `sound.volume`).
    private mutating func fraction(_ value: JSONValue?, at path: FieldPath) -> Double? {
        guard let value, value != .null else { return nil }
        guard let number = value.numberValue else {
            reader.report.error(path, "must be a number from 0 to 1, not \(value.typeDescription)")
            return nil
        }
        guard let parsed = Double(number.literal), (0...1).contains(parsed) else {
            reader.report.error(path, "must be a number from 0 to 1, not \(number.messageText)")
            return nil
        }
        return parsed
    }

    private mutating func checkLiveActivityKeys(_ object: JSONObject, at path: FieldPath) {
        for key in ["timestamp", "stale-date", "dismissal-date"] {
            _ = reader.integer(object[key], at: path.appending(key), required: false)
        }
        for key in ["event", "attributes-type"] {
            _ = reader.string(object[key], at: path.appending(key), required: false)
        }
        for key in ["content-state", "attributes"] {
            _ = reader.object(object[key], at: path.appending(key), required: false)
        }
    }

    /// Combinations the device would silently mishandle.
    private mutating func checkCombinations(_ aps: APS, at path: FieldPath) {
        let showsAlert = aps.alert?.hasVisibleText ?? false
        if aps.mutableContent && !showsAlert {
            reader.report.warning(path.appending("mutable-content"),
                "the service extension only runs for notifications that show an alert: add aps.alert")
        }
        if aps.contentAvailable && (showsAlert || aps.badge != nil || aps.sound != nil) {
            reader.report.warning(path.appending("content-available"),
                "a background update should not also carry alert, badge or sound; APNs may throttle it")
        }
        if aps.sound?.critical == true && aps.interruptionLevel != nil && aps.interruptionLevel != .critical {
            reader.report.warning(path.appending("interruption-level"), "a critical sound expects interruption-level critical")
        }
    }
}
