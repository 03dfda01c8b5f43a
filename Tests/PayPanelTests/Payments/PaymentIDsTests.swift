import PayPanel
import Testing

@Suite struct PaymentIDsTests {
    @Test func idsHaveTheirPrefixAndAreReproducibleFromASeed() {
        var first = SeededRandomNumberGenerator(seed: 42)
        var second = SeededRandomNumberGenerator(seed: 42)
        let a = PaymentIDs.make(.intent, using: &first)
        let b = PaymentIDs.make(.intent, using: &second)
        #expect(a == b)
        #expect(a.hasPrefix("pi_"))
        #expect(PaymentIDs.isWellFormed(a, kind: .intent))
        #expect(!PaymentIDs.isWellFormed(a, kind: .refund))
        #expect(PaymentIDs.make(.attempt, using: &first).hasPrefix("att_"))
        #expect(PaymentIDs.make(.refund, using: &first).hasPrefix("re_"))
    }

    @Test func differentSeedsGiveDifferentIDs() {
        var first = SeededRandomNumberGenerator(seed: 1)
        var second = SeededRandomNumberGenerator(seed: 2)
        #expect(PaymentIDs.make(.intent, using: &first) != PaymentIDs.make(.intent, using: &second))
    }
}
