/// Help text in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.
enum HelpFormatter {
    static let helpOption = OptionSpec.flag("--help", short: "h", help: "Show help information.")
    static let versionOption = OptionSpec.flag("--version", help: "Show the version.")

    static func help(for spec: CommandSpec, path: String) -> String {
        var text = "OVERVIEW: \(spec.abstract)\n"
        if let discussion = spec.discussion {
            let paragraphs = discussion.split(separator: "\n", omittingEmptySubsequences: false)
            text += "\n" + paragraphs.map { wrap(String($0), width: 80).joined(separator: "\n") }.joined(separator: "\n") + "\n"
        }
        text += "\nUSAGE: \(path) \(spec.generatedUsage)".trimmingTrailingSpaces() + "\n"
        if !spec.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in spec.arguments { text += row("<\(argument.name)>", argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in spec.options + [helpOption] { text += row(optionLabel(option), option.help) }
        return text
    }

    static func help(forGroup name: String, abstract: String, children: [CommandNode], path: String, isRoot: Bool) -> String {
        var text = "OVERVIEW: \(abstract)\n"
        text += "\nUSAGE: \(path) <subcommand>\n"
        text += "\nOPTIONS:\n"
        if isRoot { text += row(optionLabel(versionOption), versionOption.help) }
        text += row(optionLabel(helpOption), helpOption.help)
        text += "\nSUBCOMMANDS:\n"
        for child in children { text += row(child.name, child.abstract) }
        text += "\n  See '\(path) <subcommand> --help' for detailed help.\n"
        return text
    }

    static func usageLine(for node: CommandNode, path: String) -> String {
        switch node {
        case .group: "Usage: \(path) <subcommand>"
        case .command(let type): "Usage: \(path) \(type.spec.generatedUsage)".trimmingTrailingSpaces()
        }
    }

    private static func optionLabel(_ option: OptionSpec) -> String {
        let short = option.shortName.map { "-\($0), " } ?? ""
        return short + option.synopsis
    }

    /// Two-column rows: the label padded to 24 columns, the help wrapped beside it.
    private static func row(_ label: String, _ help: String) -> String {
        let indent = String(repeating: " ", count: 26)
        let lines = wrap(help, width: 80 - 26)
        var text = "  " + label
        if label.count > 22 {
            text += "\n" + indent
        } else {
            text += String(repeating: " ", count: 24 - label.count)
        }
        text += lines.joined(separator: "\n" + indent) + "\n"
        return text
    }

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
