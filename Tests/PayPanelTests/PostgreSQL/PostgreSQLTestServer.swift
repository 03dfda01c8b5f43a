#if PostgreSQL
import Foundation
import PayPanel
import PayPanelPostgres
import Testing

/// Where the PostgreSQL tests find their server: `$PAYPANEL_TEST_POSTGRES_URL` (`.ci/run`
/// starts a throwaway one and exports it). Without it the tests are skipped with a message,
/// unless `$PAYPANEL_TEST_POSTGRES_REQUIRED=1` (CI), where a missing server is a failure.
enum PostgreSQLTestServer {
    static let urlVariable = "PAYPANEL_TEST_POSTGRES_URL"
    static let requiredVariable = "PAYPANEL_TEST_POSTGRES_REQUIRED"

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "\(PostgreSQLTestServer.urlVariable) is not set but \(PostgreSQLTestServer.requiredVariable)=1: start a PostgreSQL server (see .ci/run) and export its URL"
        }
    }

    static func url() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment[urlVariable], !url.isEmpty { return url }
        if environment[requiredVariable] == "1" { throw Missing() }
        try Test.cancel("\(urlVariable) is not set: the PostgreSQL store is not tested")
    }

    /// A schema name no other test uses.
    static func freshSchemaName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
    }
}

/// A test's own schema, dropped when the test lets go of it.
final class PostgreSQLTestSchema {
    let url: String
    let schema: String

    init(url: String, schema: String) {
        self.url = url
        self.schema = schema
    }

    deinit {
        try? PostgreSQLSchemaMaintenance.dropSchema(url: url, schema: schema)
    }
}
#endif
