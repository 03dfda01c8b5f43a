import Foundation
import PayPanel
import PayPanelHTTP

/// The operator console, `GET /console` (every mode): a static page that holds no secret. The
/// operator signs in with a secret key that the page keeps in memory only and sends in the
/// `Authorization` header only; everything it shows comes from the `/v1` API with that key.
/// Same headers as the demo page: only this origin's script and style files, `nosniff`.
public struct ConsoleSite: APIRouteProvider {
    public init() {}

    public func addRoutes(to router: inout Router) {
        router.get("/console", credential: .none) { _ in try DemoSite.asset("console.html") }
        router.get("/console/console.css", credential: .none) { _ in try DemoSite.asset("console.css") }
        router.get("/console/console.js", credential: .none) { _ in try DemoSite.asset("console.js") }
    }

    public var openAPIPaths: [(path: String, item: JSONValue)] {
        let page = { (what: String, mediaType: String) in
            OpenAPIDocument.item(["get": OpenAPIDocument.operation(
                "The operator console's \(what) (sign in with a secret key, kept in the page's memory only).",
                responses: ["200": what], mediaType: mediaType)])
        }
        return [("/console", page("HTML page", "text/html")), ("/console/console.css", page("stylesheet", "text/css")), ("/console/console.js", page("script", "text/javascript"))]
    }
}
