import Foundation
import PayPanel
import PayPanelReliability
import Testing
import TestSupport

/// The chaos soak (`paypanel soak chaos` runs the long version; `.ci/run` a 2-minute one): a
/// short seeded run here, and proof that its answer audit can fail.
@Suite("chaos soak: clients paying while serve and processor serve are SIGKILLed")
struct ChaosSoakTests {
    @Test("Four clients for 15 s, both servers killed: both ledgers agree and no answer contradicts the money")
    func shortChaosSoakPasses() async throws {
        let directory = try TemporaryDirectory("chaos-soak")
        var configuration = ChaosSoakConfiguration(clients: 4, seconds: 15, seed: 7, executable: CLIRunner.binary.path, directory: directory.path)
        // Kills 2–5 s apart: at least two fit in 15 s, and the first two are one of each server.
        configuration.killInterval = 2...5
        // Generous: a loaded 2-core machine; these only bound a stuck intent, they measure nothing.
        configuration.stepSettleTimeout = 90
        configuration.settleTimeout = 300
        let soak = configuration
        let report = try await onThread { try ChaosSoak(configuration: soak).run() }
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.contradictions.isEmpty)
        #expect(report.serveKills >= 1 && report.processorKills >= 1, "\(JSONWriter.string(report.json))")
        #expect(report.serveRestarts >= report.serveKills && report.processorRestarts >= report.processorKills)
        // The audit had something to check: money-bearing answers of both kinds of client.
        #expect(report.answersAudited > 0 && report.audit.intents > 0 && report.audit.ledgerEntries > 0, "\(JSONWriter.string(report.json))")
        #expect(report.answers.keys.contains { $0.hasPrefix("pay 200") } && report.answers.keys.contains { $0.hasPrefix("confirm") },
                "\(report.answers)")
    }

    @Test("The answer audit reports answers that contradict the processor's ledger, and accepts what the client's own later steps explain")
    func fabricatedContradictionsAreReported() throws {
        let usd = try Currency(code: "USD")
        func effect(_ id: String, _ attempt: String, _ operation: ProcessorOperation, _ amount: Int64, _ status: ProcessorEffect.Status = .approved, refund: String? = nil) -> ProcessorEffect {
            ProcessorEffect(
                processorID: id, reference: attempt, operation: operation, refundReference: refund, amount: Amount(minorUnits: amount, currency: usd),
                status: status)
        }
        let effects = [
            // att_2: approved and never voided — money held.
            effect("auth_2", "att_2", .authorize, 1000),
            // att_5: captured, not refunded.
            effect("auth_5", "att_5", .authorize, 1000), effect("cap_5", "att_5", .capture, 1000),
            // att_6: captured, then refunded in full by the client's own later refund rf_6.
            effect("auth_6", "att_6", .authorize, 1000), effect("cap_6", "att_6", .capture, 1000),
            effect("re_6", "att_6", .refund, 1000, refund: "rf_6"),
            // att_7: approved late, then voided (the sheet had said failure).
            effect("auth_7", "att_7", .authorize, 1000), effect("void_7", "att_7", .void, 1000),
            // att_8: declined.
            effect("auth_8", "att_8", .authorize, 1000, .declined),
        ]
        let answers = [
            // Contradictions:
            ChaosAnswer(client: 0, step: 1, call: .pay, intentID: "pi_1", httpStatus: 200, status: "success", attemptID: "att_1"),
            ChaosAnswer(client: 0, step: 2, call: .pay, intentID: "pi_2", httpStatus: 200, status: "failure", attemptID: "att_2"),
            ChaosAnswer(client: 1, step: 1, call: .confirm, intentID: "pi_3", httpStatus: 200, status: "requires_capture", attemptID: "att_3"),
            ChaosAnswer(client: 1, step: 2, call: .refund, intentID: "pi_5", httpStatus: 200, status: "succeeded", refundID: "rf_5", amount: 400),
            ChaosAnswer(client: 1, step: 3, call: .cancel, intentID: "pi_5", httpStatus: 200, status: "canceled"),
            // Consistent:
            ChaosAnswer(client: 2, step: 1, call: .pay, intentID: "pi_6", httpStatus: 200, status: "success", attemptID: "att_6"),
            ChaosAnswer(client: 2, step: 2, call: .refund, intentID: "pi_6", httpStatus: 200, status: "succeeded", refundID: "rf_6", amount: 1000),
            ChaosAnswer(client: 2, step: 3, call: .pay, intentID: "pi_7", httpStatus: 200, status: "failure", attemptID: "att_7"),
            ChaosAnswer(client: 2, step: 4, call: .confirm, intentID: "pi_8", httpStatus: 402, status: "requires_payment_method", attemptID: "att_8", errorCode: "card_declined"),
            ChaosAnswer(client: 2, step: 5, call: .confirm, intentID: "pi_5", httpStatus: 200, status: "succeeded", attemptID: "att_5", amount: 1000),
            // Asserts nothing: no answer, an unknown outcome.
            ChaosAnswer(client: 3, step: 1, call: .pay, intentID: "pi_9", httpStatus: 0),
            ChaosAnswer(client: 3, step: 2, call: .confirm, intentID: "pi_9", httpStatus: 200, status: "processing", attemptID: "att_9"),
        ]
        let audit = ChaosAnswerAudit(
            answers: answers, effects: effects,
            attemptsOfIntent: ["pi_1": ["att_1"], "pi_2": ["att_2"], "pi_3": ["att_3"], "pi_5": ["att_5"], "pi_6": ["att_6"], "pi_7": ["att_7"], "pi_8": ["att_8"]])
        let found = audit.contradictions()
        #expect(found.count == 5, "\(found)")
        #expect(found.contains { $0.hasPrefix("client 0 step 1: pay of pi_1 (attempt att_1) answered 200 success") && $0.contains("keeps no money") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("client 0 step 2: pay of pi_2") && $0.contains("an authorization still held") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("client 1 step 1: confirm of pi_3") && $0.contains("approved no authorization") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("client 1 step 2: refund of pi_5 (refund rf_5)") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("client 1 step 3: cancel of pi_5") && $0.contains("att_5") }, "\(found)")
        #expect(audit.audited == 10)

        // The same success with the refund sent by *another* client is not explained by it.
        var foreign = answers.filter { $0.intentID == "pi_6" }
        foreign[1].client = 9
        let unexplained = ChaosAnswerAudit(answers: foreign, effects: effects, attemptsOfIntent: ["pi_6": ["att_6"]]).contradictions()
        #expect(unexplained.count == 1 && unexplained[0].hasPrefix("client 2 step 1: pay of pi_6"), "\(unexplained)")
    }
}
