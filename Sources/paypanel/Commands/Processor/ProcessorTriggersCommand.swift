import Foundation
import MockProcessor
import PayPanel

/// `paypanel processor triggers [--json | --markdown]`
struct ProcessorTriggersCommand: CLICommand {
    static let spec = CommandSpec(
        name: "triggers",
        abstract: "List the mock processor's triggers: test cards, cardholder names, scenarios and chains.",
        discussion: """
            The outcome is chosen by, in order: the explicit scenario; the cardholder name (a trigger name, or a \
            chain such as HTTP_503|APPROVE taken one step per call for the same reference); the card (an expired \
            card is declined, the Stripe test numbers below mean what they mean at Stripe, any other valid number \
            is approved). This table is generated from the code; docs/mock-processor.md holds the same one.
            """,
        options: [
            CommonOptions.json,
            .flag("--markdown", help: "Print the table as Markdown (as in docs/mock-processor.md)."),
        ],
        combinations: "[--json | --markdown]")

    let json: Bool
    let markdown: Bool

    init(arguments: ParsedArguments) throws {
        json = arguments.flag(CommonOptions.json.name)
        markdown = arguments.flag("--markdown")
        if json && markdown { throw UsageError("'--json' and '--markdown' exclude each other: pick one") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        if json {
            console.printJSON(.array(TriggerTable.rows().map(\.json)))
        } else if markdown {
            console.print(TriggerTable.markdown(), terminator: "")
        } else {
            for (index, row) in TriggerTable.rows().enumerated() {
                if index > 0 { console.print() }
                console.print(row.trigger + (row.cards.isEmpty ? "" : "  (cards " + row.cards.joined(separator: ", ") + ")"))
                console.print("  authorize: " + plain(row.authorize))
                if !row.later.isEmpty { console.print("  later:     " + plain(row.later)) }
                console.print("  lookup:    " + plain(row.lookup))
            }
        }
        return .success
    }

    /// The table's text without Markdown emphasis, for the terminal.
    private func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "**", with: "")
    }
}
