import Foundation
import PayPanel
import Testing
import TestSupport

/// `/v1/devices` and checkout pushes on a server without APNs credentials: devices are kept,
/// pushes are recorded as skipped, and the server says once that it does not push.
@Suite struct DeviceRouteTests {
    static let token = String(repeating: "0a", count: 32)

    @Test func devicesAreRegisteredOnceAndCheckoutsWithoutAPNsAreNotPushed() async throws {
        let server = try await ServerProcess.start(arguments: ["--apns-topic", "com.example.PayPanelDemo"])
        let created = try await server.request("POST", "/v1/devices", json: #"{"token":"\#(Self.token.uppercased())"}"#)
        #expect(created.status == 200, "\(created.text)")
        #expect(created["object"] == "device" && created["status"] == "active")
        #expect(created["token"]?.stringValue == Self.token)
        #expect(created["topic"] == "com.example.PayPanelDemo" && created["environment"] == "production")
        #expect(created.id.hasPrefix("dev_"))
        let again = try await server.request("POST", "/v1/devices", json: #"{"token":"\#(Self.token)"}"#)
        #expect(again.id == created.id)
        #expect(try await server.request("GET", "/v1/devices/\(created.id)")["status"] == "active")
        #expect(try await server.request("GET", "/v1/devices/dev_nope").status == 404)

        let checkout = try await server.request("POST", "/v1/checkouts", json: #"{"device":"\#(created.id)"}"#)
        #expect(checkout.status == 200, "\(checkout.text)")
        #expect(checkout["push"]?["status"] == "skipped")
        #expect(checkout["push"]?["reason"] == "apns_not_configured")
        #expect(checkout["push"]?["apns_id"]?.stringValue.flatMap(UUID.init(uuidString:)) != nil)
        #expect(try await server.request("GET", "/v1/checkouts/\(checkout.id)")["push"]?["status"] == "skipped")
        #expect(try await server.request("POST", "/v1/checkouts", json: #"{"device":"dev_unknown"}"#).status == 404)
        #expect(server.stderr.contains("push: no APNs key"))
        #expect(await server.terminate() == 0)
    }

    @Test(arguments: [
        (#"{"token":"xyz","topic":"com.example.app"}"#, "invalid_device"),
        (#"{"token":"\#(String(repeating: "0a", count: 32))","topic":"com.example.app","environment":"staging"}"#, "parameter_invalid"),
        (#"{"token":"\#(String(repeating: "0a", count: 32))"}"#, "parameter_missing"),  // no topic, no --apns-topic
        (#"{"topic":"com.example.app"}"#, "parameter_missing"),
    ])
    func badRegistrationsAreRefusedWithTheirCode(_ body: String, _ code: String) async throws {
        let server = try await ServerProcess.start()
        let response = try await server.request("POST", "/v1/devices", json: body)
        #expect(response.status == 400, "\(response.text)")
        #expect(response.errorCode == code, "\(response.text)")
        await server.terminate()
    }
}
