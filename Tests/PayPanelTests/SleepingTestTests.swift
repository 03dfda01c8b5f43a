import Foundation
import Testing

/// Tests wait for what they check. A test that sleeps a fixed time and then asserts that
/// something did (or did not) happen passes or fails by the machine's load, and one that asserts
/// "nothing more happened" after a sleep passes even when the component never looked: it cannot
/// fail. So every sleep in `Tests/` is either
/// - the pause of a poll loop that checks a condition and gives up at a deadline (`while`,
///   `repeat` or `for`, whose text bounds it: a `deadline`, `Date() <`, `.now <`, or a counted
///   `for _ in 0..<N`), waiting for the component's own signal (its pass counter, its log line,
///   a state it reports), or
/// - the thing under test (a slow handler, a real sleeper), marked on its line or the line before
///   with `// sleep is the test:` and why.
@Suite struct SleepingTestTests {
    static let marker = "// sleep is the test:"

    /// A call that sleeps: `Task.sleep(`, `Thread.sleep(`, `usleep(`, `nanosleep(`, a clock's or
    /// sleeper's `.sleep(for:`, a bare `sleep(`. Matched in code only (strings and comments are
    /// blanked first), so `"/bin/sleep"` and this file's own examples do not count. Simple word
    /// boundaries: by Unicode's default, `Task.sleep` is one word, with no boundary before `sleep`.
    static var sleepCall: Regex<Substring> { (/\b(?:u|nano)?sleep\(/).wordBoundaryKind(.simple) }

    /// What bounds a poll loop.
    static var bound: Regex<Substring> { (/\bdeadline\b|Date\(\)\s*[<>]|\.now\s*[<>]|\bin\s+0\s*\.\.[<.]/).wordBoundaryKind(.simple) }
    /// What makes a loop a poll (it checks something): the loop's own condition (`while`,
    /// `repeat … while`, `for … where`) or a way out of its body.
    static var check: Regex<Substring> {
        (/^\s*(?:\}\s*)?(?:while|repeat)\b|\bwhere\b|\bbreak\b|\breturn\b|\bthrow\b|\bguard\b/).wordBoundaryKind(.simple)
    }

    @Test func everySleepInTheTestsIsAPollWithADeadlineOrSaysItIsTheTest() throws {
        var sleeps = 0
        var offending: [String] = []
        for (file, text) in try BlockingWaitTests.sources(under: "Tests") {
            let found = Self.sleeps(in: text)
            sleeps += found.count
            for sleep in found where !sleep.allowed {
                offending.append("Tests/\(file):\(sleep.line): \(sleep.text)")
            }
        }
        #expect(sleeps >= 30, "the reading found the tests' sleeps (\(sleeps))")
        #expect(
            offending.isEmpty,
            """
            sleeps that are not a poll loop's pause and not marked as the thing under test. Wait for what \
            the test checks instead: poll the component's own progress signal (a pass counter such as \
            /healthz worker_passes or /_mock/webhook_deliveries sender_passes, a log line, a state) in a \
            loop with a deadline, then assert. If the sleep itself is what is tested, put \
            "\(Self.marker) <why>" on its line or the line before.
            \(offending.joined(separator: "\n"))
            """)
    }

    /// The check on the class it is for: the fixed sleep before "no retry yet" that
    /// ProcessorWebhookSendingTests had, beside the forms that are allowed.
    @Test func theCheckFindsASleepThenAssertAndPassesPollsAndMarkedSleeps() {
        let sleepThenAssert = """
            func retries() async throws {
                let first = try await catcher.waitFor(1)
                // Not before its time.
                try await Task.sleep(for: .milliseconds(600))
                #expect(catcher.caught.count == 1)
            }
            """
        #expect(Self.sleeps(in: sleepThenAssert).map { "line \($0.line): \($0.allowed)" } == ["line 4: false"])

        let unboundedPoll = """
            while answered.all.count < 20 { try await Task.sleep(for: .milliseconds(5)) }
            """
        #expect(Self.sleeps(in: unboundedPoll).map(\.allowed) == [false], "a poll with no deadline can hang instead of failing")
        let markedWithoutReason = """
            try await Task.sleep(for: .milliseconds(600))  // sleep is the test:
            """
        #expect(Self.sleeps(in: markedWithoutReason).map(\.allowed) == [false], "the marker says why")

        let allowed = """
            func waitFor(_ count: Int) async throws -> [Caught] {
                let deadline = Date().addingTimeInterval(60)
                while caught.count < count, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
                repeat {
                    statuses = try await read(#"{"a": {"b": 1}}"#)
                    if statuses.allSatisfy({ $0 == "sent" }) { break }
                    try await Task.sleep(for: .milliseconds(200))
                } while Date() < stop
                for _ in 0..<500 where kill(pid, 0) == 0 { usleep(10_000) }
                let handler: Handler = { request in
                    // sleep is the test: the slow first request must still be answered first.
                    if request.target.path == "/slow" { try? await Task.sleep(for: .milliseconds(100)) }
                    return .text("/bin/sleep(1)")
                }
                await TaskSleeper().sleep(for: .milliseconds(30))  // sleep is the test: a real sleeper waits.
            }
            """
        #expect(Self.sleeps(in: allowed).map(\.allowed) == [true, true, true, true, true])
    }

    // MARK: - Reading the sources

    /// Each sleep call in `text`: its line (from 1), the line's code, and whether it is allowed.
    static func sleeps(in text: String) -> [(line: Int, text: String, allowed: Bool)] {
        let raw = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let code = codeOnly(raw)
        // The blocks open at each point, innermost last, and each block's header and lines.
        var blocks: [(header: String, open: Int, close: Int)] = []
        var stack: [Int] = []
        var found: [(line: Int, enclosing: [Int])] = []
        for (index, line) in code.enumerated() {
            var segmentStart = line.startIndex
            var position = line.startIndex
            let calls = line.ranges(of: sleepCall).map(\.lowerBound).filter { !line[..<$0].hasSuffix("func ") }
            while position < line.endIndex {
                if calls.contains(position) { found.append((index, stack)) }
                switch line[position] {
                case "{":
                    blocks.append((String(line[segmentStart..<position]), index, index))
                    stack.append(blocks.count - 1)
                    segmentStart = line.index(after: position)
                case "}":
                    if let last = stack.popLast() { blocks[last].close = index }
                    segmentStart = line.index(after: position)
                case ";":
                    segmentStart = line.index(after: position)
                default: break
                }
                position = line.index(after: position)
            }
        }
        return found.map { sleep in
            // The marker counts with a reason after it, on the sleep's line or the one before.
            let marked = [sleep.line, sleep.line - 1].contains { index in
                index >= 0 && raw[index].firstRange(of: marker).map { !raw[index][$0.upperBound...].trimmingCharacters(in: .whitespaces).isEmpty } == true
            }
            // The innermost loop around the sleep, from its header to its closing line (where a
            // `repeat`'s condition is).
            let loop = sleep.enclosing.reversed().map { blocks[$0] }.first { $0.header.contains(/^\s*(?:\w+:\s*)?(?:while|repeat|for)\b/) }
            let polls = loop.map { loop in
                let body = code[loop.open...loop.close].joined(separator: "\n")
                return body.contains(bound) && (loop.header.contains(check) || body.contains(check))
            } ?? false
            return (sleep.line + 1, raw[sleep.line].trimmingCharacters(in: .whitespaces), marked || polls)
        }
    }

    /// The lines with string literals and comments blanked, so that braces and calls in them
    /// are not read as code (Swift's quoted, raw `#"…"#` and multi-line `"""` strings, `//` and
    /// `/* */` comments).
    static func codeOnly(_ lines: [String]) -> [String] {
        let tripleQuote = String(repeating: "\"", count: 3)
        var inMultiline = false
        var inBlockComment = false
        return lines.map { line in
            let characters = Array(line)
            var kept = ""
            var index = 0
            func starts(_ text: String) -> Bool { characters[index...].starts(with: text) }
            while index < characters.count {
                if inMultiline {
                    if starts(tripleQuote) { inMultiline = false; index += 3 } else { index += 1 }
                    continue
                }
                if inBlockComment {
                    if starts("*/") { inBlockComment = false; index += 2 } else { index += 1 }
                    continue
                }
                if starts("//") { break }
                if starts("/*") { inBlockComment = true; index += 2; continue }
                if starts(tripleQuote) { inMultiline = true; index += 3; continue }
                // A quoted string, raw (`#"…"#`, no escapes) or not: skipped to its end.
                let hashes = characters[index...].prefix { $0 == "#" }.count
                if index + hashes < characters.count, characters[index + hashes] == "\"" {
                    let closing = "\"" + String(repeating: "#", count: hashes)
                    index += hashes + 1
                    while index < characters.count, !starts(closing) {
                        index += (hashes == 0 && characters[index] == "\\") ? 2 : 1
                    }
                    index += closing.count
                    kept += "\"\""
                    continue
                }
                kept.append(characters[index])
                index += 1
            }
            return kept
        }
    }
}
