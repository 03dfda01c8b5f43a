import Foundation
import PayPanel
import PayPanelReliability
import Testing
import TestSupport

/// The check every server test's responses go through (`ServerProcess.request`): it passes a
/// real response and fails each way a response can drift from /openapi.json.
@Suite struct OpenAPIConformanceTests {
    @Test func aRealIntentConformsAndEveryDriftFromItIsNamed() async throws {
        let server = try await ServerProcess.start()
        let id = try await server.createIntent(capture: "manual")
        _ = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        let intent = try await server.request("GET", "/v1/payment_intents/\(id)")
        let document = try await server.request("GET", "/openapi.json").json
        #expect(await server.terminate() == 0)
        let check = OpenAPIConformance(document: document)
        let path = "/v1/payment_intents/\(id)"
        let json = "application/json"
        let violations = { (body: JSONValue) in
            check.violations(method: "GET", target: path, status: 200, contentType: json, body: Array(JSONWriter.string(body).utf8))
        }
        #expect(violations(intent.json) == [])

        var missing = intent.json
        missing.removeMember("status")
        #expect(violations(missing) == ["GET \(path) → 200: $: required member status is missing"])

        var extra = intent.json
        extra.setMember("card_number", "4242424242424242")
        #expect(violations(extra) == ["GET \(path) → 200: $: member card_number is not in the document"])

        var wrongType = intent.json
        wrongType.setMember("amount", "1000")
        #expect(violations(wrongType) == ["GET \(path) → 200: $.amount: a string where the document says integer"])

        var fraction = intent.json
        fraction.setMember("amount", .number(JSONNumber(validatedLiteral: "10.5")))
        #expect(violations(fraction).count == 1)

        var unknownStatus = intent.json
        unknownStatus.setMember("status", "approved")
        #expect(violations(unknownStatus).first?.contains(#"$.status: "approved" is not one of"#) == true)

        var nullCurrency = intent.json
        nullCurrency.setMember("currency", .null)
        #expect(violations(nullCurrency) == ["GET \(path) → 200: $.currency: null where the document says string"])

        let notJSON = check.violations(method: "GET", target: path, status: 200, contentType: "text/html", body: Array("<p>".utf8))
        #expect(notJSON.first?.contains("content type text/html") == true)
        // A status the operation does not list answers as its `default`: the error envelope.
        let health = Array(#"{"object":"health","id":"healthz","status":"ok"}"#.utf8)
        #expect(check.violations(method: "GET", target: "/healthz", status: 200, contentType: json, body: health) == [])
        let undocumentedStatus = check.violations(method: "GET", target: "/healthz", status: 201, contentType: json, body: health)
        #expect(undocumentedStatus.first == "GET /healthz → 201: $: required member error is missing")
        let unknownRoute = check.violations(method: "GET", target: "/v1/nothing", status: 200, contentType: json, body: Array("{}".utf8))
        #expect(unknownRoute == ["GET /v1/nothing → 200: no such route and status in the document"])
    }

    @Test func aNestedAttemptAndAnErrorEnvelopeAreCheckedToo() async throws {
        let server = try await ServerProcess.start()
        let id = try await server.createIntent()
        _ = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        let listed = try await server.request("GET", "/v1/payment_intents?limit=1")
        let missing = try await server.request("GET", "/v1/payment_intents/pi_missing")
        let document = try await server.request("GET", "/openapi.json").json
        #expect(await server.terminate() == 0)
        let check = OpenAPIConformance(document: document)

        // An attempt (inside `attempts`, only in a retrieve) without its card's last four.
        var attempt: JSONValue = ["object": "payment_attempt", "id": "pa_1", "status": "captured", "source": "card", "amount": 1000,
                                  "currency": "USD", "card": ["network": "visa", "exp_month": 12, "exp_year": 2030], "failure": nil,
                                  "created": 1]
        var intent = try #require(listed.json["data"]?.arrayValue?.first)
        intent.setMember("attempts", [attempt])
        var list = listed.json
        list.setMember("data", [intent])
        let body = Array(JSONWriter.string(list).utf8)
        #expect(check.violations(method: "GET", target: "/v1/payment_intents?limit=1", status: 200, contentType: "application/json", body: body)
            == ["GET /v1/payment_intents → 200: $.data[0].attempts[0].card: required member last4 is missing"])
        attempt.setMember("card", ["network": "visa", "last4": "4242", "exp_month": 12, "exp_year": 2030])
        intent.setMember("attempts", [attempt])
        list.setMember("data", [intent])
        #expect(check.violations(method: "GET", target: "/v1/payment_intents", status: 200, contentType: "application/json",
                                 body: Array(JSONWriter.string(list).utf8)) == [])

        #expect(missing.status == 404)
        var envelope = missing.json
        #expect(check.violations(method: "GET", target: "/v1/payment_intents/pi_missing", status: 404, contentType: "application/json",
                                 body: Array(JSONWriter.string(envelope).utf8)) == [])
        envelope.setMember("error", ["type": "oops", "code": "x", "message": "m", "request_id": "r"])
        #expect(check.violations(method: "GET", target: "/v1/payment_intents/pi_missing", status: 404, contentType: "application/json",
                                 body: Array(JSONWriter.string(envelope).utf8)).first?.contains(#"$.error.type: "oops" is not one of"#) == true)
    }

    /// Every operation says what its success answers with: JSON with a schema, a page's type,
    /// or nothing at all for a 204 (which RFC 9110 §15.3.5 forbids a body).
    @Test func everySuccessResponseInTheDocumentHasContent() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root"])
        let document = try await server.request("GET", "/openapi.json").json
        #expect(await server.terminate() == 0)
        var operations = 0
        for (path, item) in document["paths"]?.objectValue?.members ?? [] {
            for (method, operation) in item.objectValue?.members ?? [] {
                operations += 1
                let successes = (operation["responses"]?.objectValue?.members ?? []).filter { $0.key.hasPrefix("2") }
                #expect(!successes.isEmpty, "\(method) \(path) documents no success")
                for (status, response) in successes {
                    if status == "204" {
                        #expect(response["content"] == nil, "\(method) \(path) 204 documents a body")
                        continue
                    }
                    let content = response["content"]?.objectValue
                    #expect(content?.members.first?.value["schema"] != nil, "\(method) \(path) \(status) has no schema")
                }
            }
        }
        #expect(operations >= 30)
    }
}

/// The served document read by a real OpenAPI 3.1 validator (`openapi-spec-validator` from
/// PyPI, in the Python `.ci/run` sets up), not only by our own reading of it.
@Suite(.enabled(if: SpecValidator.skipReason == nil, Comment(rawValue: SpecValidator.skipReason ?? "")))
struct OpenAPISpecValidatorTests {
    @Test func theServedDocumentIsValidOpenAPI31() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root"])
        let document = try await server.request("GET", "/openapi.json")
        #expect(await server.terminate() == 0)
        let directory = try TemporaryDirectory("paypanel-openapi")
        _ = try directory.write("openapi.json", document.text)
        let script = "import json, sys; from openapi_spec_validator import validate; validate(json.load(open(sys.argv[1]))); print('valid')"
        let result = try ChildProcess.run(
            MockAPNs.python, MockAPNs.pythonArguments + ["-c", script, directory.file("openapi.json")],
            environment: ProcessInfo.processInfo.environment, directory: directory.path)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("valid"))
    }
}

enum SpecValidator {
    static let skipReason: String? = {
        let found = try? ChildProcess.run(
            MockAPNs.python, MockAPNs.pythonArguments + ["-c", "import openapi_spec_validator"],
            environment: ProcessInfo.processInfo.environment, directory: FileManager.default.temporaryDirectory.path)
        return found?.status == 0 ? nil : "no Python with openapi-spec-validator (set PAYPANEL_TEST_PYTHON; .ci/run makes one)"
    }()
}

extension JSONValue {
    mutating func setMember(_ name: String, _ value: JSONValue) {
        guard case .object(var object) = self else { return }
        object[name] = value
        self = .object(object)
    }

    mutating func removeMember(_ name: String) {
        guard case .object(var object) = self else { return }
        object[name] = nil
        self = .object(object)
    }
}
