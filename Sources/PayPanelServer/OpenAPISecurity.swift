import PayPanel
import PayPanelHTTP

/// How a credential appears in the OpenAPI document: the security schemes that satisfy it
/// (any one of them). Empty: the route is public.
protocol DocumentedCredential {
    var openAPISchemes: [String] { get }
}

extension SecretKeyCredential: DocumentedCredential {
    var openAPISchemes: [String] { ["secretKey"] }
}

extension ClientSecretCredential: DocumentedCredential {
    var openAPISchemes: [String] { ["clientSecret"] }
}

extension ProcessorSignatureCredential: DocumentedCredential {
    var openAPISchemes: [String] { ["processorSignature"] }
}

extension DemoKeyCredential: DocumentedCredential {
    var openAPISchemes: [String] { ["demoKey"] }
}

extension DemoKeyRefusal: DocumentedCredential {
    /// Never a way in: it only explains a refusal.
    var openAPISchemes: [String] { [] }
}

extension EitherCredential: DocumentedCredential {
    var openAPISchemes: [String] {
        [preferred, otherwise].flatMap { ($0 as? any DocumentedCredential)?.openAPISchemes ?? [] }
    }
}

/// The document's security, written from the router's table: each operation gets the schemes
/// of the credential its route declares, so what the document says and what the server checks
/// are one decision.
enum OpenAPISecurity {
    static let schemes: JSONValue = .orderedObject([
        ("secretKey", bearer("sk_… secret API key (paypanel keys create)")),
        ("clientSecret", bearer("the checkout's client_secret (co_…_secret_…): pays that one checkout, nothing else")),
        ("demoKey", bearer("test mode only: the demo page's dk_test_… key from GET /demo/session")),
        ("processorSignature", .orderedObject([
            ("type", "apiKey"), ("in", "header"), ("name", "Stripe-Signature"),
            ("description", "t=<unix seconds>,v1=<HMAC-SHA256 of t.body under the processor's webhook secret>"),
        ])),
    ])

    private static func bearer(_ description: String) -> JSONValue {
        .orderedObject([("type", "http"), ("scheme", "bearer"), ("description", .string(description))])
    }

    /// `document` with `security` on every operation of `table`, and a 401 on those a bearer
    /// token guards. Stops the program when a guarded route's credential cannot be documented.
    static func securing(_ document: JSONValue, by table: [Router.Entry]) -> JSONValue {
        guard var root = document.objectValue, var paths = root["paths"]?.objectValue else { return document }
        for entry in table {
            let method = entry.route.method.rawValue.lowercased()
            guard var item = paths[entry.route.pattern.text]?.objectValue, var operation = item[method]?.objectValue else { continue }
            let schemes = entry.credential.name == "none" ? [] : (entry.credential as? any DocumentedCredential)?.openAPISchemes
            guard let schemes else {
                preconditionFailure("\(entry.route) declares the credential '\(entry.credential.name)', which the OpenAPI document cannot describe")
            }
            operation["security"] = .array(schemes.map { .orderedObject([($0, .array([]))]) })
            if schemes.contains(where: { $0 != "processorSignature" }), var responses = operation["responses"]?.objectValue, responses["401"] == nil {
                responses["401"] = .orderedObject([
                    ("description", "missing or invalid credential"),
                    ("content", .orderedObject([("application/json", .orderedObject([("schema", OpenAPISchemas.ref("Error"))]))])),
                ])
                operation["responses"] = .object(JSONObject(responses.members.sorted { $0.key < $1.key }))
            }
            item[method] = .object(operation)
            paths[entry.route.pattern.text] = .object(item)
        }
        root["paths"] = .object(paths)
        return .object(root)
    }
}
