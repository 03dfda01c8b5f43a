import Foundation
import MockProcessor
import PayPanel
import Testing

/// Every row of the DESIGN §5 table: what `authorize` answers, what the ledger holds afterwards,
/// what a lookup finds, and how long the caller waited (virtual time). The expectations are
/// written out here, independently of the trigger table the code generates.
@Suite struct TriggerOutcomeTests {
    enum Answer: Equatable {
        case approved
        case declined(String)
        case challenge
        case unknown
        case notProcessed
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let label: String
        var card = "4242424242424242"
        var holder: String? = nil
        var expiry = "12/30"
        var scenario: String? = nil
        let answer: Answer
        /// The ledger entry's status and decline code; nil when nothing may be recorded.
        let entry: (status: String, declineCode: String?)?
        /// What lookup finds; nil for not found.
        let lookup: Answer?
        var waited: TimeInterval = 0
        /// The trigger name the entry records.
        var trigger: String? = nil

        var testDescription: String { label }
    }

    static let approvedEntry: (status: String, declineCode: String?)? = ("approved", nil)
    static func declinedEntry(_ code: String) -> (status: String, declineCode: String?)? { ("declined", code) }

    static let cases: [Case] = [
        Case(label: "visa 4242 approved", answer: .approved, entry: approvedEntry, lookup: .approved, trigger: "APPROVE"),
        Case(label: "mastercard 4444 approved", card: "5555555555554444", answer: .approved, entry: approvedEntry, lookup: .approved, trigger: "APPROVE"),
        Case(label: "amex 0005 approved", card: "378282246310005", answer: .approved, entry: approvedEntry, lookup: .approved, trigger: "APPROVE"),
        Case(label: "discover 1117 approved", card: "6011111111111117", answer: .approved, entry: approvedEntry, lookup: .approved, trigger: "APPROVE"),
        Case(label: "any other valid card approved", card: "4111111111111111", answer: .approved, entry: approvedEntry, lookup: .approved, trigger: "APPROVE"),
        Case(label: "0002 generic decline", card: "4000000000000002", answer: .declined("generic_decline"), entry: declinedEntry("generic_decline"), lookup: .declined("generic_decline"), trigger: "GENERIC_DECLINE"),
        Case(label: "9995 insufficient funds", card: "4000000000009995", answer: .declined("insufficient_funds"), entry: declinedEntry("insufficient_funds"), lookup: .declined("insufficient_funds")),
        Case(label: "9987 lost card", card: "4000000000009987", answer: .declined("lost_card"), entry: declinedEntry("lost_card"), lookup: .declined("lost_card")),
        Case(label: "9979 stolen card", card: "4000000000009979", answer: .declined("stolen_card"), entry: declinedEntry("stolen_card"), lookup: .declined("stolen_card")),
        Case(label: "0069 expired card", card: "4000000000000069", answer: .declined("expired_card"), entry: declinedEntry("expired_card"), lookup: .declined("expired_card")),
        Case(label: "0119 processing error", card: "4000000000000119", answer: .declined("processing_error"), entry: declinedEntry("processing_error"), lookup: .declined("processing_error")),
        Case(label: "0127 incorrect cvc", card: "4000000000000127", answer: .declined("incorrect_cvc"), entry: declinedEntry("incorrect_cvc"), lookup: .declined("incorrect_cvc"), trigger: "INCORRECT_CVC"),
        Case(label: "6975 velocity limit", card: "4000000000006975", answer: .declined("card_velocity_exceeded"), entry: declinedEntry("card_velocity_exceeded"), lookup: .declined("card_velocity_exceeded"), trigger: "CARD_VELOCITY_EXCEEDED"),
        Case(label: "0019 Radar block", card: "4100000000000019", answer: .declined("fraudulent"), entry: declinedEntry("fraudulent"), lookup: .declined("fraudulent"), trigger: "FRAUDULENT"),
        Case(label: "holder AUTHENTICATION_REQUIRED", holder: "AUTHENTICATION_REQUIRED", answer: .declined("authentication_required"), entry: declinedEntry("authentication_required"), lookup: .declined("authentication_required"), trigger: "AUTHENTICATION_REQUIRED"),
        Case(label: "3220 challenge", card: "4000000000003220", answer: .challenge, entry: ("challenge_required", nil), lookup: .challenge, trigger: "CHALLENGE"),
        Case(label: "Diners 0004 approved", card: "3056930009020004", answer: .approved, entry: approvedEntry, lookup: .approved, trigger: "APPROVE"),
        Case(label: "expiry month in the past", expiry: "10/26", answer: .declined("expired_card"), entry: declinedEntry("expired_card"), lookup: .declined("expired_card"), trigger: "EXPIRED_CARD"),
        Case(label: "expiry this month still good", expiry: "11/26", answer: .approved, entry: approvedEntry, lookup: .approved),
        Case(label: "holder DO_NOT_HONOR", holder: "DO_NOT_HONOR", answer: .declined("do_not_honor"), entry: declinedEntry("do_not_honor"), lookup: .declined("do_not_honor"), trigger: "DO_NOT_HONOR"),
        Case(label: "holder names are case-insensitive", holder: " do_not_honor ", answer: .declined("do_not_honor"), entry: declinedEntry("do_not_honor"), lookup: .declined("do_not_honor")),
        Case(label: "3184 challenge", card: "4000002760003184", answer: .challenge, entry: ("challenge_required", nil), lookup: .challenge, trigger: "CHALLENGE"),
        Case(label: "3178 challenge", card: "4000008260003178", answer: .challenge, entry: ("challenge_required", nil), lookup: .challenge),
        Case(label: "1629 challenge", card: "4000008400001629", answer: .challenge, entry: ("challenge_required", nil), lookup: .challenge),
        Case(label: "TIMEOUT_THEN_APPROVED", holder: "TIMEOUT_THEN_APPROVED", answer: .unknown, entry: approvedEntry, lookup: .approved, waited: 25),
        Case(label: "TIMEOUT_THEN_DECLINED", holder: "TIMEOUT_THEN_DECLINED", answer: .unknown, entry: declinedEntry("generic_decline"), lookup: .declined("generic_decline"), waited: 25),
        Case(label: "TIMEOUT_THEN_NOT_RECEIVED", holder: "TIMEOUT_THEN_NOT_RECEIVED", answer: .unknown, entry: nil, lookup: nil, waited: 25),
        Case(label: "HTTP_500_BEFORE", holder: "HTTP_500_BEFORE", answer: .unknown, entry: nil, lookup: nil),
        Case(label: "HTTP_500_AFTER", holder: "HTTP_500_AFTER", answer: .unknown, entry: approvedEntry, lookup: .approved, trigger: "HTTP_500_AFTER"),
        Case(label: "HTTP_503", holder: "HTTP_503", answer: .notProcessed, entry: nil, lookup: nil),
        Case(label: "HTTP_429", holder: "HTTP_429", answer: .notProcessed, entry: nil, lookup: nil),
        Case(label: "SLOW_5S within the timeout", holder: "SLOW_5S", answer: .approved, entry: approvedEntry, lookup: .approved, waited: 5, trigger: "SLOW_5S"),
        Case(label: "SLOW_40S past the timeout", holder: "SLOW_40S", answer: .unknown, entry: approvedEntry, lookup: .approved, waited: 25),
        Case(label: "CAPTURE_FAIL approves", holder: "CAPTURE_FAIL", answer: .approved, entry: approvedEntry, lookup: .approved, trigger: "CAPTURE_FAIL"),
        Case(label: "CAPTURE_TIMEOUT approves", holder: "CAPTURE_TIMEOUT", answer: .approved, entry: approvedEntry, lookup: .approved),
        Case(label: "CAPTURE_FAIL_LATE approves", holder: "CAPTURE_FAIL_LATE", answer: .approved, entry: approvedEntry, lookup: .approved),
        Case(label: "VOID_FAIL approves", holder: "VOID_FAIL", answer: .approved, entry: approvedEntry, lookup: .approved),
        Case(label: "REFUND_ASYNC approves", holder: "REFUND_ASYNC", answer: .approved, entry: approvedEntry, lookup: .approved),
        Case(label: "REFUND_FAIL approves", holder: "REFUND_FAIL", answer: .approved, entry: approvedEntry, lookup: .approved),
        Case(label: "holder trigger beats the card", card: "4000000000000002", holder: "APPROVE", answer: .approved, entry: approvedEntry, lookup: .approved),
        Case(label: "ordinary holder name leaves it to the card", card: "4000000000000002", holder: "Jane Appleseed", answer: .declined("generic_decline"), entry: declinedEntry("generic_decline"), lookup: .declined("generic_decline")),
        Case(label: "scenario beats holder and card", card: "4000000000000002", holder: "DO_NOT_HONOR", scenario: "APPROVE", answer: .approved, entry: approvedEntry, lookup: .approved),
        Case(label: "scenario beats an expired card", expiry: "01/20", scenario: "INSUFFICIENT_FUNDS", answer: .declined("insufficient_funds"), entry: declinedEntry("insufficient_funds"), lookup: .declined("insufficient_funds")),
        Case(label: "unknown scenario is a malformed request", scenario: "APPROVED", answer: .declined("invalid_request"), entry: nil, lookup: nil),
        Case(label: "holder chain with an unknown step is a malformed request", holder: "HTTP_503|APROVE", answer: .declined("invalid_request"), entry: nil, lookup: nil),
    ]

    static func classify(_ outcome: ProcessorOutcome) -> Answer {
        switch outcome {
        case .approved: .approved
        case .declined(let code): .declined(code.rawValue)
        case .challengeRequired: .challenge
        case .unknown: .unknown
        case .notProcessed: .notProcessed
        case .pending: .unknown
        }
    }

    @Test(arguments: cases)
    func authorizationAnswersRecordsAndLooksUpAsTheTableSays(_ testCase: Case) async throws {
        let harness = try ProcessorHarness()
        let method = try Requests.card(testCase.card, holder: testCase.holder, expiry: testCase.expiry)
        let request = Requests.authorization("att_1", method: method, scenario: testCase.scenario)

        let outcome = await harness.processor.authorize(request, timeout: callerTimeout)

        #expect(Self.classify(outcome) == testCase.answer)
        #expect(harness.elapsed == testCase.waited)
        let entries = try harness.entries()
        if let expected = testCase.entry {
            #expect(entries.count == 1)
            let entry = try #require(entries.first)
            #expect(entry.reference == "att_1")
            #expect(entry.operation == .authorize)
            #expect(entry.amount == Requests.amount(1000))
            #expect(entry.status.rawValue == expected.status)
            #expect(entry.declineCode?.rawValue == expected.declineCode)
            #expect(entry.last4 == String(testCase.card.suffix(4)))
            #expect(entry.createdAt == ProcessorHarness.start)
            if let trigger = testCase.trigger { #expect(entry.trigger == trigger) }
            if case .approved(let approval) = outcome {
                #expect(approval.amount == Requests.amount(1000))
                #expect(approval.processorID == entry.processorID)
                #expect(approval.expiresAt == ProcessorHarness.start.addingTimeInterval(7 * 86_400))
            }
        } else {
            #expect(entries.isEmpty)
        }

        let lookup = await harness.processor.lookup(reference: "att_1", operation: .authorize, timeout: callerTimeout)
        switch (lookup, testCase.lookup) {
        case (.notFound, nil): break
        case (.found(let found), let expected?): #expect(Self.classify(found) == expected)
        default: Issue.record("lookup found \(lookup), expected \(String(describing: testCase.lookup))")
        }
    }

    @Test func everyTriggerOfTheCatalogIsCoveredAbove() {
        let covered = Set(Self.cases.compactMap { $0.holder?.trimmingCharacters(in: .whitespaces).uppercased() })
            .union(Self.cases.compactMap(\.scenario))
        let coveredCards = Set(Self.cases.map(\.card))
        for trigger in MockTrigger.catalog {
            let byName = covered.contains(trigger.name) || (trigger.tableName == "SLOW_<n>S" && covered.contains("SLOW_5S"))
            let byCard = TestCards.numbers(for: trigger).contains { coveredCards.contains($0) }
            #expect(byName || byCard, "trigger \(trigger.name) has no case in TriggerOutcomeTests")
        }
        // A test card is covered by its own case or by one of a card with the same trigger (the
        // table gives both the same behaviour); the wire tests confirm every card of the table.
        let coveredTriggers = Set(TestCards.numbers.filter { coveredCards.contains($0.digits) }.map(\.trigger.name))
        for (card, trigger) in TestCards.numbers {
            #expect(coveredCards.contains(card) || coveredTriggers.contains(trigger.name), "test card \(card) (\(trigger.name)) has no case")
        }
    }

    @Test func http500BeforeAndAfterLookTheSameToTheCaller() async throws {
        let harness = try ProcessorHarness()
        let before = await harness.processor.authorize(
            Requests.authorization("att_before", method: try Requests.card(holder: "HTTP_500_BEFORE")), timeout: callerTimeout)
        let after = await harness.processor.authorize(
            Requests.authorization("att_after", method: try Requests.card(holder: "HTTP_500_AFTER")), timeout: callerTimeout)
        #expect(before == after)
        #expect(before.isUnknown)
    }

    @Test func notProcessedAnswersSayWhatToDo() async throws {
        let harness = try ProcessorHarness()
        let outcome = await harness.processor.authorize(
            Requests.authorization("att_1", method: try Requests.card(holder: "HTTP_503")), timeout: callerTimeout)
        guard case .notProcessed(let reason) = outcome else {
            Issue.record("expected notProcessed, got \(outcome)")
            return
        }
        #expect(reason.contains("503"))
        #expect(reason.contains("retry with the same reference"))
    }

    @Test func aRetryAfterANotReceivedRequestIsANewRequest() async throws {
        let harness = try ProcessorHarness()
        let request = Requests.authorization("att_1", method: try Requests.card(holder: "TIMEOUT_THEN_NOT_RECEIVED|APPROVE"))
        #expect(await harness.processor.authorize(request, timeout: callerTimeout).isUnknown)
        #expect(await harness.processor.lookup(reference: "att_1", operation: .authorize, timeout: callerTimeout) == .notFound)
        #expect(await harness.processor.authorize(request, timeout: callerTimeout).approval != nil)
        #expect(try harness.entries().count == 1)
    }
}
