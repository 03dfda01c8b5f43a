import Foundation
import Testing
import TestSupport

@testable import PayPanel
import PayPanelDemo

/// The keys compiled into the binary are exactly fixtures/keys (generate.sh writes both).
@Suite struct EmbeddedTestKeysTests {
    @Test func embeddedFilesEqualTheFixtures() throws {
        #expect(EmbeddedTestKeys.files.count == 8)
        for (name, embedded) in EmbeddedTestKeys.files {
            let fixture = try TokenFixtures.fixtureText(name)
            #expect(embedded + "\n" == fixture, "\(name) differs from fixtures/keys/\(name): run fixtures/keys/generate.sh")
        }
    }

    @Test func embeddedIdentitiesAreTheDemoDefaults() throws {
        #expect(ApplePayTestKeys.root == (try TokenFixtures.certificate("root-ca.pem")))
        #expect(ApplePayTestKeys.signer.certificate == (try TokenFixtures.certificate("signing-leaf.pem")))
        #expect(ApplePayTestKeys.signer.certificate.hasExtension(AppleOID.leafMarker))
        #expect(ApplePayTestKeys.signer.intermediate.hasExtension(AppleOID.intermediateMarker))
        #expect(ApplePayTestKeys.ecMerchant.merchantIdentifier == ApplePayTestKeys.merchantIdentifier)
        #expect(ApplePayTestKeys.rsaMerchant.merchantIdentifier == ApplePayTestKeys.merchantIdentifier)
        #expect(ApplePayTestKeys.root.notAfter > TokenFixtures.date("2100-01-01T00:00:00Z"))
    }
}
