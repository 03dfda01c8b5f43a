/// Command-line arguments parsed against a `CommandSpec`: options by name, positionals in order.
struct ParsedArguments {
    let spec: CommandSpec
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `arguments` (everything after the command path). `--name value`, `--name=value`,
    /// `-x value`, and `--` (everything after it is positional) are understood; `-` alone is a
    /// positional (standard input).
    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        self.spec = spec
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            let option: OptionSpec?
            if name.hasPrefix("--") {
                option = spec.option(named: name)
            } else if name.count == 2, let short = name.last {
                option = spec.option(short: short)
            } else {
                option = nil
            }
            guard let option else {
                // A negative number is a value, not an option, when the command takes positionals.
                if Int64(argument) != nil, !spec.arguments.isEmpty {
                    positionals.append(argument)
                    continue
                }
                throw UsageError("Unknown option '\(name)'")
            }
            if option.isFlag {
                if inlineValue != nil { throw UsageError("'\(option.name)' does not take a value") }
                flags.insert(option.name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError("Missing value for '\(option.synopsis)'") }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, values[option.name] != nil {
                throw UsageError("'\(option.name)' was given more than once; give it once")
            }
            values[option.name, default: []].append(value)
        }
        let maximum = spec.arguments.count
        if positionals.count > maximum {
            throw UsageError("Unexpected argument '\(positionals[maximum])'")
        }
        for (position, argument) in spec.arguments.enumerated() where !argument.isOptional && position >= positionals.count {
            throw UsageError("Missing expected argument '<\(argument.name)>'")
        }
    }

    /// The value of an option, or nil when it was not given.
    func value(_ name: String) -> String? {
        precondition(spec.option(named: name) != nil, "option \(name) is not declared by \(spec.name)")
        return values[name]?.last
    }

    /// Every value of a repeatable option, in order.
    func allValues(_ name: String) -> [String] {
        precondition(spec.option(named: name) != nil, "option \(name) is not declared by \(spec.name)")
        return values[name] ?? []
    }

    func flag(_ name: String) -> Bool {
        precondition(spec.option(named: name) != nil, "option \(name) is not declared by \(spec.name)")
        return flags.contains(name)
    }

    /// The positional argument at `index`, or nil when it was not given.
    func positional(_ index: Int) -> String? {
        index < positionals.count ? positionals[index] : nil
    }

    /// An option's value as a whole number in `range`, or a usage error saying what was wrong.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("'\(name)' takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// An option's value that must be one of `choices`.
    func choice(_ name: String, from choices: [String]) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            throw UsageError("'\(name)' takes one of \(choices.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }
}

/// Bad usage: reported as `Error:` + `Usage:` on stderr, exit 64.
struct UsageError: Error, Sendable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
