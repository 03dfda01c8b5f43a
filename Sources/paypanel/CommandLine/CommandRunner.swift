import PayPanel

/// Finds the command named by the arguments, handles `--help` and `--version`, runs it, and
/// turns every outcome into an exit status with the messages swift-argument-parser users expect.
@MainActor
struct CommandRunner {
    let root: CommandNode
    let programName: String

    func run(_ arguments: [String], console: Console) async -> ExitStatus {
        var node = root
        var path = programName
        var remaining = arguments[...]

        // Walk down the groups.
        while case .group(let name, let abstract, let children) = node {
            guard let next = remaining.first else {
                console.printError("Error: '\(path)' needs a subcommand: \(children.map(\.name).joined(separator: ", "))")
                console.printError(HelpFormatter.usageLine(for: node, path: path))
                console.printError("  See '\(path) --help' for more information.")
                return .usage
            }
            if next == "--help" || next == "-h" || next == "help" {
                if next == "help", remaining.count > 1 {
                    // `paypanel help request validate` = `paypanel request validate --help`
                    return await run(Array(remaining.dropFirst()) + ["--help"], console: console, from: node, path: path)
                }
                console.print(HelpFormatter.help(forGroup: name, abstract: abstract, children: children, path: path, isRoot: node.name == root.name && path == programName), terminator: "")
                return .success
            }
            if next == "--version", path == programName {
                console.print(PayPanelVersion.current)
                return .success
            }
            guard let child = node.child(named: next) else {
                let kind = next.hasPrefix("-") ? "option" : "command"
                console.printError("Error: Unknown \(kind) '\(next)'")
                console.printError(HelpFormatter.usageLine(for: node, path: path))
                console.printError("  See '\(path) --help' for the commands: \(children.map(\.name).joined(separator: ", ")).")
                return .usage
            }
            node = child
            path += " " + child.name
            remaining = remaining.dropFirst()
        }
        return await run(Array(remaining), console: console, from: node, path: path)
    }

    private func run(_ arguments: [String], console: Console, from node: CommandNode, path: String) async -> ExitStatus {
        if case .group = node {
            return await CommandRunner(root: node, programName: path).run(arguments, console: console)
        }
        guard case .command(let type) = node else { return .usage }
        let spec = type.spec
        let options = arguments.prefix(while: { $0 != "--" })
        if options.contains("--help") || options.contains("-h") {
            console.print(HelpFormatter.help(for: spec, path: path), terminator: "")
            return .success
        }
        let context = CommandContext(console: console, commandPath: path)
        var parsedArguments: ParsedArguments?
        do {
            let parsed = try ParsedArguments(arguments, spec: spec)
            parsedArguments = parsed
            let command = try type.init(arguments: parsed)
            let status = try await command.run(context)
            console.flush()
            return status
        } catch let error as UsageError {
            console.printError("Error: \(error.message)")
            console.printError(HelpFormatter.usageLine(for: node, path: path))
            console.printError("  See '\(path) --help' for more information.")
            return .usage
        } catch let error as any PayPanelError {
            // Store errors get the database the command opened and the option that helps,
            // which the library (knowing neither) leaves out; every other error says itself.
            let text = StoreErrorText.message(
                for: error, database: parsedArguments?.databaseDisplayName(environment: context.environment) ?? CommonOptions.defaultDatabasePath)
            console.printError("Error: \(text ?? error.message)")
            return .failure
        } catch {
            console.printError("Error: \(error)")
            return .failure
        }
    }
}
