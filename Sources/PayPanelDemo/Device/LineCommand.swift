import Foundation
import PayPanel

/// One line of a scripted checkout (standard input that is not a terminal): an action, or one
/// of the commands that only exist in line mode (`wait`, `show`, `help`).
///
/// `expand`, `select 2` / `select 20`, `buy`, `app`, `card 2` (a wallet card) / `card PAN`,
/// `expiry MM/YY`, `holder NAME`, `confirm`, `pass`, `fail`, `back`, `done`, `quit`,
/// `wait SECONDS`, `show`, `help`. Blank lines and lines starting with `#` are skipped.
public enum LineCommand: Sendable, Equatable {
    case action(CheckoutAction)
    /// Let time pass (virtual time with `--now`), then look for panel updates.
    case wait(seconds: Double)
    /// Print the current screen again.
    case show
    /// Print the commands that work now.
    case help
    /// A blank line or a comment.
    case nothing

    /// The longest `wait`: ten minutes.
    public static let maximumWait: Double = 600

    /// Parses one line; the error says what is wrong with it.
    public static func parse(_ line: String) -> Result<LineCommand, LineCommandError> {
        let trimmed = line.trimmingWhitespace()
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .success(.nothing) }
        let parts = trimmed.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        let word = parts[0].lowercased()
        let argument = parts.count > 1 ? String(parts[1]).trimmingWhitespace() : nil
        func noArgument(_ command: LineCommand) -> Result<LineCommand, LineCommandError> {
            argument == nil ? .success(command) : .failure(LineCommandError("'\(word)' takes no argument"))
        }
        func needsArgument(_ what: String) -> Result<String, LineCommandError> {
            guard let argument, !argument.isEmpty else { return .failure(LineCommandError("'\(word)' needs \(what)")) }
            return .success(argument)
        }
        switch word {
        case "expand", "open": return noArgument(.action(.expand))
        case "buy", "a": return noArgument(.action(.buyWithApplePay))
        case "app", "p": return noArgument(.action(.payInApp))
        case "confirm", "pay": return noArgument(.action(.confirm))
        case "pass": return noArgument(.action(.passChallenge))
        case "fail": return noArgument(.action(.failChallenge))
        case "back", "cancel", "esc": return noArgument(.action(.back))
        case "done", "ok": return noArgument(.action(.done))
        case "quit", "q", "exit": return noArgument(.action(.quit))
        case "show": return noArgument(.show)
        case "help", "?": return noArgument(.help)
        case "select":
            return needsArgument("a segment number (select 2) or an amount (select 20)").map { .action(.select($0)) }
        case "card":
            return needsArgument("a wallet card number (card 2) or a card number (card 4242 4242 4242 4242)").map { text in
                if text.count <= 2, let number = Int(text) { return .action(.chooseCard(number)) }
                return .action(.enterCardNumber(text))
            }
        case "expiry": return needsArgument("a month and year (expiry 12/29)").map { .action(.enterExpiry($0)) }
        case "holder", "name": return needsArgument("a name (holder Jane Appleseed)").map { .action(.enterHolder($0)) }
        case "wait":
            return needsArgument("a number of seconds (wait 5)").flatMap { text in
                guard let seconds = Double(text), seconds >= 0, seconds <= maximumWait, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
                else {
                    return .failure(LineCommandError("'wait' takes a number of seconds from 0 to \(Int(maximumWait)), not '\(text)'"))
                }
                return .success(.wait(seconds: seconds))
            }
        default:
            return .failure(LineCommandError("'\(SensitiveDigits.redacted(String(parts[0])))' is not a command"))
        }
    }

    /// The line as it may be echoed or logged: a card number shows only its last four digits.
    public static func redacted(_ line: String) -> String {
        let trimmed = line.trimmingWhitespace()
        let parts = trimmed.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0].lowercased() == "card", let number = try? CardNumber(String(parts[1])) {
            return "card •••• \(number.last4)"
        }
        return SensitiveDigits.redacted(trimmed)
    }
}

/// A line that is not a checkout command.
public struct LineCommandError: Error, Sendable, Equatable {
    public let message: String

    /// An error saying what is wrong with the line.
    public init(_ message: String) {
        self.message = message
    }
}
