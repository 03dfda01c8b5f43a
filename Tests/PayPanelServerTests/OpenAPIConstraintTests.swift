import Foundation
import PayPanel
import Testing
import TestSupport

/// Constraints the OpenAPI document states that depend on more than one member, checked
/// against the server that serves the document: what the schema allows is accepted and what it
/// forbids is refused, at the edge. (Tests/openapi/ checks the rest by generated requests.)
@Suite struct OpenAPIConstraintTests {
    /// A new intent's amount is at most 100,000,000 of its currency's major unit: one `if
    /// currency … then amount ≤ …` branch per number of minor units. Every currency is in
    /// exactly one branch, and for one currency of each branch the server accepts the maximum
    /// and refuses one minor unit more.
    @Test func theAmountMaximumOfEveryCurrencyIsTheServers() async throws {
        let server = try await ServerProcess.start()
        let document = try await server.request("GET", "/openapi.json").json
        let schema = document["paths"]?["/v1/payment_intents"]?["post"]?["requestBody"]?["content"]?["application/json"]?["schema"]
        let branches = try #require(schema?["allOf"]?.arrayValue, "the intent's body states its amount maximum per currency")
        let overall = try #require(schema?["properties"]?["amount"]?["maximum"]?.numberValue?.integralValue)
        var covered: [String] = []
        var maxima: [Int64] = []
        for branch in branches {
            let codes = branch["if"]?["properties"]?["currency"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let maximum = try #require(branch["then"]?["properties"]?["amount"]?["maximum"]?.numberValue?.integralValue)
            let code = try #require(codes.first)
            covered += codes
            maxima.append(maximum)
            let atMaximum = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":\#(maximum),"currency":"\#(code)"}"#)
            #expect(atMaximum.status == 200, "\(maximum) \(code): \(atMaximum.text)")
            let above = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":\#(maximum + 1),"currency":"\#(code)"}"#)
            #expect(above.status == 400, "\(maximum + 1) \(code): \(above.text)")
        }
        #expect(covered.sorted() == Currency.all.map(\.code).sorted())
        #expect(Set(covered).count == covered.count, "a currency is in two branches")
        #expect(overall == maxima.max(), "the amount's own maximum is the largest branch's")
        #expect(await server.terminate() == 0)
    }
}
