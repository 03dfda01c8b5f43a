import PayPanelHTTP

/// The notification service extension's rules, run on a push with `mutable-content: 1`:
///
/// 1. read the Getui `payload` string (never trusting it to be well formed);
/// 2. set the subtitle from its `subTitle`;
/// 3. pick one medium: `imageUrl`, else `videoUrl` (only on Wi-Fi), else `gifUrl`;
/// 4. fetch it within the deadline (25 s of the system's 30 s budget by default);
/// 5. keep it only when its file extension and its real type (magic bytes) agree, the type is
///    one the key may carry, and it is within the size limit for its type.
///
/// Whatever goes wrong — malformed string, unreachable server, timeout, wrong type, too big —
/// the best attempt is delivered: the original content with the subtitle, and a
/// `fallback` saying why. `mutate` never throws.
package struct NotificationServiceExtension: Sendable {
    /// The network the device is on; video is only fetched on Wi-Fi.
    package enum Network: String, Sendable, CaseIterable {
        case wifi, cellular
    }

    package var fetcher: any MediaFetcher
    /// Where downloads are saved; local files are used in place.
    package var store: AttachmentStore
    package var network: Network
    /// How long the fetch may take: the system kills the extension at 30 s, so the default
    /// leaves 5 s to deliver the best attempt.
    package var deadline: Duration
    package var clock: any MonotonicClock

    /// The system's budget for an extension; deadlines above it are refused by the CLI.
    package static let systemBudget = Duration.seconds(30)
    package static let defaultDeadline = Duration.seconds(25)

    package init(
        fetcher: any MediaFetcher, store: AttachmentStore, network: Network = .wifi,
        deadline: Duration = NotificationServiceExtension.defaultDeadline, clock: any MonotonicClock = SystemMonotonicClock()
    ) {
        self.fetcher = fetcher
        self.store = store
        self.network = network
        self.deadline = deadline
        self.clock = clock
    }

    /// The content the device shows for `payload`.
    package func mutate(_ payload: PushPayload) -> DeliveredNotification {
        var content = NotificationContent(aps: payload.aps)
        guard payload.aps.mutableContent else {
            return DeliveredNotification(content: content, attachment: nil, fallback: nil, extensionRan: false)
        }
        func deliver(_ attachment: NotificationAttachment? = nil, _ fallback: MutationFallback? = nil) -> DeliveredNotification {
            DeliveredNotification(content: content, attachment: attachment, fallback: fallback, extensionRan: true)
        }
        if let subtitle = payload.media.usable?.subtitle, !subtitle.isEmpty {
            content.subtitle = subtitle
        }
        let media: MediaPayload
        switch payload.media {
        case .absent:
            return deliver()
        case .malformed(_, let problems):
            let first = problems.first.map(\.description) ?? "unreadable"
            let more = problems.count > 1 ? " (and \(problems.count - 1) more problem\(problems.count > 2 ? "s" : ""))" : ""
            return deliver(nil, MutationFallback(.payloadMalformed, "the payload string is malformed, so no media is attached: \(first)\(more)"))
        case .parsed(let parsed):
            media = parsed
        }
        let choice: (slot: MediaSlot, location: String)
        switch choose(from: media) {
        case .success(let chosen): choice = chosen
        case .failure(let fallback): return deliver(nil, fallback)
        case nil: return deliver()
        }
        switch attach(choice.location, slot: choice.slot) {
        case .success(let attachment): return deliver(attachment)
        case .failure(let fallback): return deliver(nil, fallback)
        }
    }

    /// Image, else video on Wi-Fi, else GIF. Nil when the payload names no media; a fallback
    /// when the only media is a video and the device is on cellular.
    func choose(from media: MediaPayload) -> Result<(slot: MediaSlot, location: String), MutationFallback>? {
        if let image = media.imageURL { return .success((.image, image)) }
        if let video = media.videoURL, network == .wifi { return .success((.video, video)) }
        if let gif = media.gifURL { return .success((.gif, gif)) }
        if media.videoURL != nil {
            return .failure(MutationFallback(.videoNeedsWifi, "videoUrl is only fetched on Wi-Fi and the device is on cellular; delivered without media"))
        }
        return nil
    }

    /// Fetches and checks one medium.
    private func attach(_ text: String, slot: MediaSlot) -> Result<NotificationAttachment, MutationFallback> {
        let location: MediaLocation
        switch MediaLocation.parse(text) {
        case .success(let parsed): location = parsed
        case .failure(let problem): return .failure(MutationFallback(.payloadMalformed, "\(slot.key): \(problem.message)"))
        }
        // The name is checked before anything is fetched: a wrong one fails without traffic.
        guard let declared = location.fileExtension.flatMap(AttachmentType.init(fileExtension:)) else {
            let shown = location.fileExtension.map { "the extension .\($0) is not an attachment type" } ?? "it has no file extension"
            return .failure(MutationFallback(.unsupportedType, "\(slot.key) \(location): \(shown); use one of \(slot.allowedExtensions)"))
        }
        guard slot.allowedTypes.contains(declared) else {
            return .failure(MutationFallback(.wrongKindForKey, "\(slot.key) \(location) is named as \(declared.mimeType), but \(slot.key) carries \(slot.allowedExtensions)"))
        }
        let started = clock.elapsed()
        let fetched: FetchedMedia
        do {
            fetched = try fetcher.fetch(location, maximumBytes: slot.maximumBytes, timeout: deadline)
        } catch {
            return .failure(MutationFallback(code: error.code, reason: "\(slot.key): \(error.message)"))
        }
        let spent = clock.elapsed() - started
        guard spent <= deadline else {
            return .failure(MutationFallback(.deadlineExceeded, "\(slot.key) \(location) took \(HTTPClient.seconds(spent)) s, past the \(HTTPClient.seconds(deadline)) s deadline; delivered without media"))
        }
        guard let actual = AttachmentType.sniff(fetched.bytes) else {
            return .failure(MutationFallback(.typeMismatch, "\(slot.key) \(location) is named .\(location.fileExtension ?? "") but its content is \(AttachmentType.describeUnknown(fetched.bytes)), not \(declared.mimeType)"))
        }
        guard actual == declared else {
            return .failure(MutationFallback(.typeMismatch, "\(slot.key) \(location) is named as \(declared.mimeType) but its content is \(actual.mimeType); the extension and the content must agree"))
        }
        guard fetched.bytes.count <= actual.kind.maximumBytes else {
            return .failure(MutationFallback(.tooLarge, "\(slot.key) \(location) is \(fetched.bytes.count) bytes; \(actual.kind.rawValue) attachments may be at most \(actual.kind.maximumBytes)"))
        }
        let file: String
        if let localFile = fetched.localFile {
            file = localFile
        } else {
            do {
                file = try store.save(fetched.bytes, slot: slot, source: location, type: actual)
            } catch {
                return .failure(MutationFallback(code: error.code, reason: error.message))
            }
        }
        return .success(NotificationAttachment(identifier: slot.rawValue, file: file, type: actual,
                                               byteCount: fetched.bytes.count, source: location.description))
    }
}

extension MediaSlot {
    /// "png, jpg, jpeg or gif".
    var allowedExtensions: String {
        let names = allowedTypes.flatMap(\.fileExtensions).map { ".\($0)" }
        return names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1] : names[0]
    }
}
