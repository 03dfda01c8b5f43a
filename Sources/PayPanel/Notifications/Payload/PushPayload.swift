/// An APNs push payload as PayPanel reads it: the standard `aps` dictionary, the custom `panel`
/// key (the payment panel, DESIGN §3) and the Getui-style `payload` key (a JSON *string* with
/// media for the service extension). The document itself is kept, so a payload is re-sent
/// exactly as received, custom keys included.
///
/// Values come from `PushPayloadReader`, which checks every type; see docs/notifications.md.
public struct PushPayload: Sendable, Equatable {
    public var aps: APS
    /// The payment panel (`panel` key), when the payload carries one.
    public var panel: PanelConfig?
    /// The Getui-style `payload` string, parsed.
    public var media: MediaPayloadField
    /// The whole document as received (or built).
    public var document: JSONObject

    public init(aps: APS, panel: PanelConfig?, media: MediaPayloadField, document: JSONObject) {
        self.aps = aps
        self.panel = panel
        self.media = media
        self.document = document
    }

    /// The most APNs accepts for a regular remote notification: 4096 bytes of compact JSON.
    public static let maximumByteCount = 4096

    /// The size APNs limits: UTF-8 bytes of the compact JSON form.
    public var compactByteCount: Int { PushPayload.compactByteCount(of: .object(document)) }

    /// The UTF-8 size of `document` written as compact JSON.
    public static func compactByteCount(of document: JSONValue) -> Int {
        JSONWriter.string(document, style: .compact).utf8.count
    }

    /// The order reference that identifies the panel across notifications: the panel's, else nil.
    public var orderReference: String? { panel?.orderReference }
}

/// The standard `aps` dictionary. Absent keys are nil (or false for the two flags).
public struct APS: Sendable, Equatable {
    public var alert: NotificationAlert?
    /// The app icon badge; 0 removes it.
    public var badge: Int64?
    public var sound: NotificationSound?
    /// Groups notifications; PayPanel also uses it to find the panel an update belongs to.
    public var threadID: String?
    /// The notification category, whose actions the notification offers (`PAYMENT_ACTION`).
    public var category: String?
    /// `content-available: 1`: a background update.
    public var contentAvailable: Bool
    /// `mutable-content: 1`: the notification service extension may change the content.
    public var mutableContent: Bool
    public var targetContentID: String?
    public var interruptionLevel: InterruptionLevel?
    /// 0…1, how the system ranks the notification in the summary.
    public var relevanceScore: Double?
    public var filterCriteria: String?

    public init(
        alert: NotificationAlert? = nil, badge: Int64? = nil, sound: NotificationSound? = nil, threadID: String? = nil,
        category: String? = nil, contentAvailable: Bool = false, mutableContent: Bool = false,
        targetContentID: String? = nil, interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil,
        filterCriteria: String? = nil
    ) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.targetContentID = targetContentID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.filterCriteria = filterCriteria
    }
}

/// `aps.alert`: the text of the banner. A plain string alert is the body alone.
public struct NotificationAlert: Sendable, Equatable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var launchImage: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var subtitleLocKey: String?
    public var subtitleLocArgs: [String]?
    public var locKey: String?
    public var locArgs: [String]?

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }

    /// True when there is something to show (text, or a localization key the app resolves).
    public var hasVisibleText: Bool {
        [title, subtitle, body, titleLocKey, subtitleLocKey, locKey].contains { ($0 ?? "").isEmpty == false }
    }
}

/// `aps.sound`: a sound name, or the critical-alert dictionary.
public struct NotificationSound: Sendable, Equatable {
    public var name: String
    public var critical: Bool
    /// 0…1, for critical alerts.
    public var volume: Double?

    public init(name: String, critical: Bool = false, volume: Double? = nil) {
        self.name = name
        self.critical = critical
        self.volume = volume
    }
}

/// `aps.interruption-level`.
public enum InterruptionLevel: String, Sendable, CaseIterable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    case critical
}
