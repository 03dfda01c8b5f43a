import Testing
import TestSupport

@Suite struct NotifyHelpCLITests {
    @Test(arguments: ["build", "validate", "show", "mutate", "schedule", "deliver", "respond", "list"])
    func everyNotifyCommandHasHelp(command: String) throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", command, "--help"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.contains("USAGE: paypanel notify \(command)"))
    }
}
