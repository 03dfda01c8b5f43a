import Foundation
import TestSupport
import Testing

/// The program's conventions, checked on the built binary: help, version, exit codes, and the
/// `Error:` / `Usage:` lines of swift-argument-parser.
@Suite struct CLIBasicsTests {
    @Test func helpListsTheCommands() throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(["--help"], in: dir)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.contains("USAGE: paypanel <subcommand>"))
        #expect(result.stdout.contains("request"))
        #expect(result.stdout.contains("checkout"))
        #expect(result.stderr.isEmpty)
    }

    @Test func versionPrintsTheVersion() throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(["--version"], in: dir)
        #expect(result.status == 0)
        #expect(result.stdoutLines.count == 1)
        #expect(result.stdout.split(separator: ".").count == 3)
    }

    @Test(arguments: [["request", "--help"], ["request", "validate", "--help"], ["request", "build", "-h"], ["help", "request", "build"], ["checkout", "--help"]])
    func everyCommandHasHelp(arguments: [String]) throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(arguments, in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("USAGE: paypanel"))
        #expect(result.stdout.contains("-h, --help"))
    }

    @Test(arguments: [
        (["frobnicate"], "Error: Unknown command 'frobnicate'", "Usage: paypanel <subcommand>"),
        (["--frobnicate"], "Error: Unknown option '--frobnicate'", "Usage: paypanel <subcommand>"),
        (["request"], "Error: 'paypanel request' needs a subcommand", "Usage: paypanel request <subcommand>"),
        (["request", "validate", "--bogus"], "Error: Unknown option '--bogus'", "Usage: paypanel request validate"),
        (["request", "validate", "a.json", "b.json"], "Error: Unexpected argument 'b.json'", "Usage: paypanel request validate"),
        (["request", "build", "--amount"], "Error: Missing value for '--amount <amount>'", "Usage: paypanel request build"),
        (["request", "build", "--segment", "9"], "Error: '--segment' takes a whole number from 1 to 5", "Usage: paypanel request build"),
        (["request", "build", "--amount", "10", "--segment", "2"], "Error: give either '--amount' or '--segment'", "Usage:"),
        (["request", "build", "--amount", "10", "--amount", "20"], "Error: '--amount' was given more than once", "Usage:"),
        (["request", "validate", "--json=yes"], "Error: '--json' does not take a value", "Usage:"),
    ])
    func badUsageExits64WithErrorAndUsage(arguments: [String], error: String, usage: String) throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(arguments, in: dir)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.first?.hasPrefix(error) == true, "\(result)")
        #expect(result.stderrLines.dropFirst().first?.hasPrefix(usage) == true, "\(result)")
        #expect(result.stderr.contains("--help"))
    }
}
