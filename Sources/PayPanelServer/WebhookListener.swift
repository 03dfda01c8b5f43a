import Foundation
import PayPanel
import PayPanelHTTP
import Synchronization

/// What `paypanel webhooks listen` runs: a local receiver that checks every delivery the way
/// a merchant's endpoint must (signature over the raw body, timestamp within 5 minutes of its
/// clock), tells duplicates by `webhook-id`, and answers 200 or the status it was told to.
/// The developer's tool for building an integration, and what the end-to-end test uses.
public final class WebhookListener: Sendable {
    /// One delivery as the listener saw it.
    public struct Delivery: Sendable {
        public let webhookID: String?
        /// The event, when the signature verified.
        public let event: JSONValue?
        /// Why it was refused, when it was.
        package let refusal: WebhookSignatureError?
        /// True when this webhook-id was seen (and verified) before.
        public let duplicate: Bool
        public let answeredStatus: Int
    }

    public let http: HTTPServer
    private let seen: SeenIDs

    /// Listens on `host:port` (0 picks one); `respond` is the status of verified deliveries.
    /// `secret` is asked for on every delivery (nil: refuse it), so a secret file can be
    /// written, or rotated, while the listener runs.
    package init(
        host: String, port: Int, secret: @escaping @Sendable () -> WebhookSecret?, respond: Int, clock: any WallClock,
        onDelivery: @escaping @Sendable (Delivery) -> Void
    ) throws {
        let seen = SeenIDs()
        self.seen = seen
        var configuration = HTTPServer.Configuration(host: host, port: port)
        configuration.handlerThreads = 2
        http = try HTTPServer.start(configuration: configuration) { request in
            let headers = request.headers
            do throws(WebhookSignatureError) {
                guard let secret = secret() else {
                    throw WebhookSignatureError(.malformedSecret, "the listener has no readable secret yet (write the --secret-file)")
                }
                let id = try StandardWebhookSignature.verify(
                    id: headers["webhook-id"], timestamp: headers["webhook-timestamp"], signatures: headers["webhook-signature"],
                    body: request.body, secret: secret, now: clock.now())
                let event = (try? JSONParser().parse(request.body)) ?? .null
                let duplicate = seen.insert(id)
                onDelivery(Delivery(webhookID: id, event: event, refusal: nil, duplicate: duplicate, answeredStatus: respond))
                let body = JSONWriter.string(.orderedObject([("received", true), ("duplicate", .bool(duplicate))])) + "\n"
                return .json(Array(body.utf8), status: HTTPStatus(code: respond))
            } catch {
                onDelivery(Delivery(webhookID: headers["webhook-id"], event: nil, refusal: error, duplicate: false, answeredStatus: 400))
                let body = JSONWriter.string(.orderedObject([("error", .orderedObject([("code", .string(error.code)), ("message", .string(error.message))]))])) + "\n"
                return .json(Array(body.utf8), status: .badRequest)
            }
        }
    }

    public var port: Int { http.port }

    public func shutdown() async { await http.shutdown(grace: .seconds(2)) }
}

/// Webhook ids already received (bounded: the oldest are forgotten past 10,000).
private final class SeenIDs: Sendable {
    private let state = Mutex<(set: Set<String>, order: [String])>((set: [], order: []))

    /// Records `id`; true when it was already there.
    func insert(_ id: String) -> Bool {
        state.withLock { state in
            if state.set.contains(id) { return true }
            state.set.insert(id)
            state.order.append(id)
            if state.order.count > 10_000 { state.set.remove(state.order.removeFirst()) }
            return false
        }
    }
}
