import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel fuzz request|payload|token [--iterations N] [--seed S] …`: one command per kind,
/// one implementation.
protocol FuzzCommand: CLICommand {
    static var kind: FuzzKind { get }
    var options: FuzzOptions { get }
}

struct FuzzRequestCommand: FuzzCommand {
    static let kind = FuzzKind.request
    static let spec = FuzzOptions.spec(
        kind, abstract: "Fuzz the payment request validator with structure-aware mutations of payment requests.",
        reader: "PaymentRequestValidator ('paypanel request validate')")
    let options: FuzzOptions
    init(arguments: ParsedArguments) throws { options = try FuzzOptions(arguments) }
}

struct FuzzPayloadCommand: FuzzCommand {
    static let kind = FuzzKind.payload
    static let spec = FuzzOptions.spec(
        kind, abstract: "Fuzz the push payload reader with structure-aware mutations of payment-action pushes.",
        reader: "PushPayloadReader ('paypanel notify validate')")
    let options: FuzzOptions
    init(arguments: ParsedArguments) throws { options = try FuzzOptions(arguments) }
}

struct FuzzTokenCommand: FuzzCommand {
    static let kind = FuzzKind.token
    static let spec = FuzzOptions.spec(
        kind, abstract: "Fuzz Apple Pay token verification and decryption with mutated tokens and mutated, properly sealed plaintexts.",
        reader: "ApplePayTokenDecryptor ('paypanel token decrypt'); half the mutants are of the decrypted plaintext, sealed and signed again")
    let options: FuzzOptions
    init(arguments: ParsedArguments) throws { options = try FuzzOptions(arguments) }
}

extension FuzzCommand {
    @MainActor
    func run(_ context: CommandContext) throws -> ExitStatus {
        try FuzzRun(kind: Self.kind, options: options, console: context.console).run()
    }
}

/// The options every fuzz command takes.
struct FuzzOptions {
    static let corpus = OptionSpec.value(
        "--corpus", "dir", repeatable: true, help: "Add the files of this directory as inputs and (when JSON) as seeds, e.g. fixtures/requests.")
    static let saveDirectory = OptionSpec.value(
        "--save-dir", "dir", help: "Where failing inputs go, under <dir>/<kind>/ (default: fixtures/fuzz when ./fixtures exists, else ./fuzz-failures). Inputs already there are replayed first.")
    static let timeLimit = OptionSpec.value("--time-limit", "seconds", help: "The longest one input may take (default 5; a debug build is ten times slower than release).")
    static let binarySample = OptionSpec.value(
        "--binary-sample", "n", help: "Also run this many of the inputs through the paypanel binary itself (default 20; 0 for none).")

    static func spec(_ kind: FuzzKind, abstract: String, reader: String) -> CommandSpec {
        CommandSpec(
            name: kind.rawValue, abstract: abstract,
            discussion: """
                Feeds \(reader) with seeded mutants of its seed documents: truncation, type swaps, huge \
                numbers, deep nesting, invalid UTF-8, long strings, base64 noise, duplicated and unknown \
                keys, empty values, Unicode tricks, card numbers, numbers as text, byte flips, huge arrays. \
                Every answer must come within the time limit, and every rejection must be reasons of one \
                line each, at most \(FuzzTarget.maximumMessageBytes) bytes, with no card data. Failing inputs \
                are saved and replayed first next time (and by the test suite); an input that crashes the \
                process is saved by the signal handler before it dies. Exits 1 when anything fails.
                """,
            options: [ReliabilityOptions.iterations, ReliabilityOptions.seed, corpus, saveDirectory, timeLimit, binarySample, CommonOptions.json])
    }

    let iterations: Int
    let seed: UInt64
    let corpusDirectories: [String]
    let saveDirectory: String
    let timeLimit: Duration
    let binarySample: Int
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        iterations = try arguments.integer(ReliabilityOptions.iterations.name, in: 0...100_000_000) ?? 10_000
        seed = try ReliabilityOptions.seed(arguments)
        corpusDirectories = arguments.allValues(Self.corpus.name)
        var isDirectory: ObjCBool = false
        let fixtures = FileManager.default.fileExists(atPath: "fixtures", isDirectory: &isDirectory) && isDirectory.boolValue
        saveDirectory = arguments.value(Self.saveDirectory.name) ?? (fixtures ? "fixtures/fuzz" : "fuzz-failures")
        if let text = arguments.value(Self.timeLimit.name) {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw UsageError("'--time-limit' takes a number of seconds from more than 0 to 3600, not '\(text)'")
            }
            timeLimit = .milliseconds(Int64(seconds * 1000))
        } else {
            timeLimit = .seconds(5)
        }
        binarySample = try arguments.integer(Self.binarySample.name, in: 0...10_000) ?? 20
        json = arguments.flag(CommonOptions.json.name)
    }
}
