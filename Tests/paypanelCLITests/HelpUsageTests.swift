import Foundation
import TestSupport
import Testing

@testable import paypanel

/// Every command's USAGE line, as the built binary prints it with `--help`, names every option
/// the command accepts. The commands and their options come from the command tree itself, so a
/// command or an option added later is checked too.
@Suite("help: USAGE names every option")
struct HelpUsageTests {
    /// One command of the tree: its words after `paypanel`, and the options its spec accepts.
    struct AcceptedOptions: Sendable, CustomTestStringConvertible {
        let path: [String]
        let options: [String]
        var testDescription: String { path.joined(separator: " ") }
    }

    static let commands: [AcceptedOptions] = collect(CommandTree.root, path: [])

    private static func collect(_ node: CommandNode, path: [String]) -> [AcceptedOptions] {
        switch node {
        case .group(let name, _, let children):
            let below = path.isEmpty && name == "paypanel" ? [] : path + [name]
            return children.flatMap { collect($0, path: below) }
        case .command(let type):
            return [AcceptedOptions(path: path + [type.spec.name], options: type.spec.options.map(\.name))]
        }
    }

    @Test func theTreeHasTheCommandsTheIssueNamed() {
        let paths = Self.commands.map { $0.path.joined(separator: " ") }
        #expect(paths.contains("serve") && paths.contains("payments authorize") && paths.contains("checkout"))
    }

    @Test(arguments: commands)
    func usageNamesEveryOption(_ command: AcceptedOptions) throws {
        let directory = try TemporaryDirectory("help-usage")
        let result = try CLIRunner.run(command.path + ["--help"], in: directory)
        #expect(result.status == 0, "\(result)")
        let usage = try #require(result.stdoutLines.first { $0.hasPrefix("USAGE: ") }, "\(result.stdout)")
        // Whole option names: `--processor` must not pass on the strength of `--processor-db`.
        let named = Set(usage.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
        let missing = command.options.filter { !named.contains($0) }
        #expect(missing.isEmpty, "USAGE of paypanel \(command.testDescription) omits \(missing): \(usage)")
    }

    /// README's command table: a row for every group and command of the tree, and in a group's
    /// rows every one of its commands (`keys` was once left out).
    @Test func theReadmeCommandTableNamesEveryCommand() throws {
        let readme = try String(contentsOf: RepositoryPaths.root.appending(path: "README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "| group | what it does |"))
        let rows = readme[start.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("|") }
        // The first cell of each row: "`payments create, authorize`" and the like.
        let cells = rows.map { $0.split(separator: "|").first.map(String.init) ?? "" }
        guard case .group(_, _, let children) = CommandTree.root else { return }
        for child in children {
            let mine = cells.filter { $0.contains("`\(child.name) ") || $0.contains("`\(child.name)`") }
            #expect(!mine.isEmpty, "README's command table has no row for \(child.name)")
            guard case .group(_, _, let commands) = child else { continue }
            let words = Set(mine.joined(separator: " ").split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
            let missing = commands.map(\.name).filter { !words.contains($0) }
            #expect(missing.isEmpty, "README's rows for \(child.name) leave out \(missing)")
        }
    }
}
