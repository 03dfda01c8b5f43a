/// A command-line option: a flag (`--json`) or an option taking a value (`--amount <amount>`).
struct OptionSpec: Sendable {
    let name: String
    let shortName: Character?
    /// Nil for a flag; the placeholder shown in help otherwise (`amount` → `--amount <amount>`).
    let valueName: String?
    let help: String
    /// May be given more than once (`--merchant-cert` for key rotation).
    let repeatable: Bool

    static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, shortName: short, valueName: nil, help: help, repeatable: false)
    }

    static func value(_ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false, help: String)
        -> OptionSpec
    {
        OptionSpec(name: name, shortName: short, valueName: valueName, help: help, repeatable: repeatable)
    }

    var isFlag: Bool { valueName == nil }

    /// `--amount <amount>` or `--json`.
    var synopsis: String {
        valueName.map { "\(name) <\($0)>" } ?? name
    }
}

/// A positional argument (`<file>`).
struct ArgumentSpec: Sendable {
    let name: String
    let help: String
    let isOptional: Bool

    static func required(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, help: help, isOptional: false)
    }

    static func optional(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, help: help, isOptional: true)
    }
}

/// What a command is, for parsing and help: name, one-line abstract, usage, arguments, options.
struct CommandSpec: Sendable {
    let name: String
    let abstract: String
    var discussion: String? = nil
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    /// How options that exclude or need each other combine, written by hand
    /// (`(--amount <amount> | --segment <n>)`). The usage shows it after the arguments, then every
    /// option it does not name: an option added to `options` is in the usage whatever this says.
    var combinations: String? = nil
    /// Extra names (`ls` for `list`), not shown in usage.
    var aliases: [String] = []

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    func option(short: Character) -> OptionSpec? {
        options.first { $0.shortName == short }
    }

    /// `[<file>] [--json]`: the usage after the command path, generated from the arguments and
    /// options so it cannot drift from what the command accepts.
    var generatedUsage: String {
        var parts = arguments.map { $0.isOptional ? "[<\($0.name)>]" : "<\($0.name)>" }
        let named = Set((combinations ?? "").split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
        if let combinations { parts.append(combinations) }
        parts += options.filter { !named.contains($0.name) }.map { "[\($0.synopsis)]" + ($0.repeatable ? " ..." : "") }
        return parts.joined(separator: " ")
    }
}

/// A runnable command. `init(arguments:)` is the validation step (typed fields from the parsed
/// arguments, `UsageError` for bad usage); `run` does the work through the library.
protocol CLICommand: SendableMetatype {
    static var spec: CommandSpec { get }
    init(arguments: ParsedArguments) throws
    /// Runs on the main actor: the console is the main thread's. Commands that drive the
    /// payment service await its actor.
    @MainActor func run(_ context: CommandContext) async throws -> ExitStatus
}

/// The command tree: groups (`request`, `payments`) hold commands and other groups.
indirect enum CommandNode: Sendable {
    case group(name: String, abstract: String, children: [CommandNode])
    case command(any CLICommand.Type)

    var name: String {
        switch self {
        case .group(let name, _, _): name
        case .command(let type): type.spec.name
        }
    }

    var abstract: String {
        switch self {
        case .group(_, let abstract, _): abstract
        case .command(let type): type.spec.abstract
        }
    }

    func child(named name: String) -> CommandNode? {
        guard case .group(_, _, let children) = self else { return nil }
        return children.first { child in
            if child.name == name { return true }
            if case .command(let type) = child { return type.spec.aliases.contains(name) }
            return false
        }
    }
}

/// Process exit codes, as swift-argument-parser uses them.
struct ExitStatus: Sendable, Equatable {
    let code: Int32
    static let success = ExitStatus(code: 0)
    /// A failure or a rejection (invalid request, decline).
    static let failure = ExitStatus(code: 1)
    /// Bad usage: unknown command or option, missing argument (EX_USAGE).
    static let usage = ExitStatus(code: 64)
}
