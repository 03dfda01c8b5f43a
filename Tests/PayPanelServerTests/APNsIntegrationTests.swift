import Foundation
import PayPanel
import TestSupport
import Testing

/// PayPanel's pushes against a real HTTP/2 server over TLS (the mock APNs in
/// fixtures/apns/mock_apns.py, on the h2 library), and https media from the same server.
/// Skipped, saying why, when not root or without the Python package (`MockAPNs.skipReason`).
@Suite(.enabled(if: MockAPNs.skipReason == nil, Comment(rawValue: MockAPNs.skipReason ?? "")))
struct APNsIntegrationTests {
    static let good = String(repeating: "ab", count: 32)
    static let unregistered = String(repeating: "cd", count: 32)
    static let badToken = String(repeating: "ef", count: 32)

    @Test func notifySendArrivesOverHTTP2WithTheHeadersAndAJWTTheServerVerifies() throws {
        let apns = try MockAPNs(rules: [Self.unregistered: (410, "Unregistered")])
        defer { apns.stop() }
        let directory = try TemporaryDirectory()
        let payload = try directory.write("push.json", #"{"aps":{"alert":{"title":"Pay","body":"5 USD"}}}"#)
        let sent = try apns.paypanel(["notify", "send", payload, "--device", Self.good, "--collapse-id", "co_1"] + apns.options(), in: directory)
        #expect(sent.0 == 0, "\(sent)")
        let apnsID = sent.1.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: apnsID) != nil)
        let request = try #require(apns.log.first)
        #expect(request["alpn"] as? String == "h2")
        #expect(request["method"] as? String == "POST")
        #expect(request["path"] as? String == "/3/device/\(Self.good)")
        #expect(request["jwt"] as? String == "verified")
        let headers = try #require(request["headers"] as? [String: String])
        #expect(headers["apns-topic"] == "com.example.PayPanelDemo")
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-priority"] == "10")
        #expect(headers["apns-collapse-id"] == "co_1")
        #expect(headers["apns-id"] == apnsID)
        #expect(request["payload"] as? String == #"{"aps":{"alert":{"title":"Pay","body":"5 USD"}}}"#)

        let refused = try apns.paypanel(["notify", "send", payload, "--device", Self.unregistered] + apns.options(), in: directory)
        #expect(refused.0 == 1)
        #expect(refused.2.contains("410 Unregistered"), "\(refused)")

        // Without the test CA, the same send fails on TLS and says so.
        let untrusted = try apns.paypanel(["notify", "send", payload, "--device", Self.good] + apns.options(), trusted: false, in: directory)
        #expect(untrusted.0 == 1)
        #expect(untrusted.2.lowercased().contains("certificate"), "\(untrusted)")
    }

    @Test func checkoutsArePushedDeadTokensMarkedDeadAndAGOAWAYLosesNothing() async throws {
        // A GOAWAY after every 2 requests, and the 3rd push cut off unanswered by a GOAWAY.
        let apns = try MockAPNs(rules: [Self.unregistered: (410, "Unregistered"), Self.badToken: (400, "BadDeviceToken")], goawayAfter: 2, dropAt: 3)
        defer { apns.stop() }
        let server = try await ServerProcess.start(arguments: apns.options(), launcher: apns.launcher)
        defer { Task { [server] in await server.terminate() } }
        func register(_ token: String) async throws -> String {
            let response = try await server.request("POST", "/v1/devices", json: #"{"token":"\#(token)","environment":"development"}"#)
            #expect(response.status == 200, "\(response.text)")
            return response.id
        }
        let good = try await register(Self.good)
        var checkouts: [String] = []
        for _ in 0..<5 {
            let created = try await server.request("POST", "/v1/checkouts", json: #"{"device":"\#(good)"}"#)
            #expect(created.status == 200, "\(created.text)")
            checkouts.append(created.id)
        }
        for (token, reason) in [(Self.unregistered, "Unregistered"), (Self.badToken, "BadDeviceToken")] {
            let device = try await register(token)
            let created = try await server.request("POST", "/v1/checkouts", json: #"{"device":"\#(device)"}"#)
            #expect(created["push"]?["status"]?.stringValue == "device_dead", "\(created.text)\nSTDERR:\n\(server.stderr)")
            #expect(created["push"]?["reason"]?.stringValue == reason)
            let shown = try await server.request("GET", "/v1/devices/\(device)")
            #expect(shown["status"]?.stringValue == "dead")
            #expect(shown["dead_reason"]?.stringValue == reason)
            // Never used again.
            let again = try await server.request("POST", "/v1/checkouts", json: #"{"device":"\#(device)"}"#)
            #expect(again.errorCode == "device_dead")
        }
        // Every push of the good device arrives, across the GOAWAYs (the worker resends what a
        // closed connection lost, with the same apns-id).
        let deadline = Date().addingTimeInterval(120)
        var statuses: [String] = []
        repeat {
            statuses = []
            for id in checkouts {
                statuses.append(try await server.request("GET", "/v1/checkouts/\(id)")["push"]?["status"]?.stringValue ?? "none")
            }
            if statuses.allSatisfy({ $0 == "sent" }) { break }
            try await Task.sleep(for: .milliseconds(200))
        } while Date() < deadline
        #expect(statuses == Array(repeating: "sent", count: 5), "\(server.stderr)")
        // An update goes to the same device with the same collapse id, as a new push.
        let updated = try await server.request("POST", "/v1/checkouts/\(checkouts[0])", json: #"{"amount_options":[1000,2000,5000]}"#)
        #expect(updated.status == 200, "\(updated.text)")
        #expect(updated["push"]?["device"]?.stringValue == good)
        let updateDeadline = Date().addingTimeInterval(120)
        while try await server.request("GET", "/v1/checkouts/\(checkouts[0])")["push"]?["status"]?.stringValue != "sent", Date() < updateDeadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        let collapsed = apns.log.filter { ($0["headers"] as? [String: String])?["apns-collapse-id"] == checkouts[0] && $0["status"] as? Int == 200 }
        #expect(Set(collapsed.compactMap { ($0["headers"] as? [String: String])?["apns-id"] }).count == 2)
        #expect(collapsed.last?["payload"].map { "\($0)".contains("5000") } == true)
        let log = apns.log
        #expect(log.contains { $0["event"] as? String == "goaway" })
        // The push cut off by the GOAWAY arrived later with the same apns-id.
        let dropped = try #require(log.first { $0["event"] as? String == "dropped" }?["apns_id"] as? String)
        #expect(log.contains { ($0["headers"] as? [String: String])?["apns-id"] == dropped && $0["status"] as? Int == 200 })
        let delivered = log.filter { $0["path"] as? String == "/3/device/\(Self.good)" && $0["status"] as? Int == 200 }
        #expect(Set(delivered.compactMap { ($0["headers"] as? [String: String])?["apns-id"] }).count == 6)
        #expect(log.allSatisfy { $0["event"] != nil || $0["jwt"] as? String == "verified" })
        #expect(await server.terminate() == 0)
    }

    /// A kept connection may be lost under a push (a network or a peer resetting it); the push
    /// is sent again at once on a new connection, so the answer the merchant's create gets is
    /// APNs' own, not "unreachable". The mock resets every connection under its second request,
    /// so each push after the first meets a lost connection. (The worker runs once an hour
    /// here, so every send is the create's own; the worker's resends are the test above's.)
    @Test func aPushThatMeetsAClosingConnectionIsAnsweredOnANewOne() async throws {
        let apns = try MockAPNs(resetReused: true)
        defer { apns.stop() }
        let server = try await ServerProcess.start(arguments: apns.options() + ["--worker-interval", "3600000"], launcher: apns.launcher)
        defer { Task { [server] in await server.terminate() } }
        let device = try await server.request("POST", "/v1/devices", json: #"{"token":"\#(Self.good)","environment":"development"}"#)
        #expect(device.status == 200, "\(device.text)")
        var statuses: [String] = []
        for _ in 0..<20 {
            let created = try await server.request("POST", "/v1/checkouts", json: #"{"device":"\#(device.id)"}"#)
            #expect(created.status == 200, "\(created.text)")
            statuses.append(created["push"]?["status"]?.stringValue ?? "none")
        }
        #expect(statuses == Array(repeating: "sent", count: 20), "\(server.stderr)")
        #expect(apns.log.filter { $0["event"] as? String == "reset" }.count >= 19)
        #expect(await server.terminate() == 0)
    }

    @Test func anHTTPSAttachmentIsFetchedAndAnUntrustedOneFallsBack() throws {
        let media = try TemporaryDirectory()
        let png = try Data(contentsOf: URL(fileURLWithPath: RepositoryPaths.fixture("attachments/offer.png")))
        try png.write(to: URL(fileURLWithPath: media.file("offer.png")))
        let apns = try MockAPNs(media: media.path)
        defer { apns.stop() }
        let directory = try TemporaryDirectory()
        let inner = #"{\"imageUrl\":\"\#(apns.url)/media/offer.png\",\"subTitle\":\"Today\"}"#
        let payload = try directory.write("push.json", #"{"aps":{"alert":{"title":"Offer","body":"Body"},"mutable-content":1},"payload":"\#(inner)"}"#)
        let fetched = try apns.paypanel(["notify", "mutate", payload, "--attachments", directory.path, "--json", "--deadline", "20"], in: directory)
        #expect(fetched.0 == 0, "\(fetched)")
        let delivered = try #require(try JSONSerialization.jsonObject(with: Data(fetched.1.utf8)) as? [String: Any])
        let attachment = try #require(delivered["attachment"] as? [String: Any], "\(fetched)")
        #expect(attachment["type"] as? String == "image/png")
        let file = try #require(attachment["file"] as? String)
        #expect(FileManager.default.contents(atPath: file) == png)

        let untrusted = try apns.paypanel(["notify", "mutate", payload, "--attachments", directory.path, "--json", "--deadline", "20"],
                                          trusted: false, in: directory)
        #expect(untrusted.0 == 0)
        let fallback = try #require(try JSONSerialization.jsonObject(with: Data(untrusted.1.utf8)) as? [String: Any])
        #expect(fallback["attachment"] is NSNull)
        #expect(fallback["fallbackCode"] as? String == "fetch_tls_failed", "\(untrusted)")
        #expect(fallback["subtitle"] as? String == "Today")
    }
}
