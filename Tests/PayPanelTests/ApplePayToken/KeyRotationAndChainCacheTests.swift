import Foundation
import Testing

@testable import PayPanel
import PayPanelDemo

/// Several merchant certificates at once, and the per-chain memory of good chains.
@Suite struct KeyRotationAndChainCacheTests {
    @Test func tokensForEitherOfTwoMerchantCertificatesDecrypt() throws {
        let current = ApplePayTestKeys.ecMerchant
        let rotated = try TokenFixtures.merchant("merchant-ec-rotated.pem", "merchant-ec-rotated.key")
        #expect(current.publicKeyHash != rotated.publicKeyHash)
        let decryptor = try TokenFixtures.decryptor(merchants: [current, rotated])
        let toCurrent = try TokenFixtures.sealedJSON(seed: "a", to: current.certificate)
        let toRotated = try TokenFixtures.sealedJSON(seed: "b", to: rotated.certificate)
        #expect(try decryptor.decrypt(toCurrent, at: TokenFixtures.signingTime).dpan.last4 == "4242")
        #expect(try decryptor.decrypt(toRotated, at: TokenFixtures.signingTime).dpan.last4 == "4242")
        // Once the old certificate is retired, its tokens are refused by name.
        let retired = try TokenFixtures.decryptor(merchants: [rotated])
        #expect(tokenError { _ = try retired.decrypt(toCurrent, at: TokenFixtures.signingTime) }?.code == "token_merchant_key_unknown")
    }

    @Test func aChainIsVerifiedOnceAndRecheckedOutsideItsValidity() throws {
        let verifier = try ApplePayTokenVerifier(merchants: [ApplePayTestKeys.ecMerchant], trustedRoot: ApplePayTestKeys.root, checksSigningTime: false)
        #expect(verifier.chainVerifier.rememberedChainCount == 0)
        for seed in ["one", "two", "three"] {
            _ = try verifier.verify(try TokenFixtures.sealedJSON(seed: seed), at: TokenFixtures.signingTime)
        }
        #expect(verifier.chainVerifier.rememberedChainCount == 1)
        // The remembered chain does not vouch for a time after its certificates expire.
        let late = tokenError { _ = try verifier.verify(try TokenFixtures.sealedJSON(), at: TokenFixtures.date("2121-06-01T00:00:00Z")) }
        #expect(late?.code == "token_chain_invalid")
    }

    @Test func aFailedChainIsNotRemembered() throws {
        let verifier = try ApplePayTokenVerifier(
            merchants: [ApplePayTestKeys.ecMerchant], trustedRoot: ApplePayTestKeys.ecMerchant.certificate, checksSigningTime: false)
        for _ in 0..<2 {
            #expect(tokenError { _ = try verifier.verify(try TokenFixtures.sealedJSON(), at: TokenFixtures.signingTime) }?.code == "token_root_not_trusted")
        }
        #expect(verifier.chainVerifier.rememberedChainCount == 0)
    }

    @Test func oneVerifierServesManyThreadsAtOnce() async throws {
        let decryptor = try TokenFixtures.decryptor()
        let tokens = try (0..<16).map { try TokenFixtures.sealedJSON(version: $0 % 4 == 0 ? .rsaV1 : .ecV1, seed: "thread \($0)") }
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for token in tokens {
                group.addTask { try decryptor.decrypt(token, at: TokenFixtures.signingTime).dpan.last4 }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: "4242", count: 16))
    }
}
