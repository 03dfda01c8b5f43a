import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The full-screen checkout on small terminals: what a person sees — the screen as the
/// terminal would show it after the checkout's cursor moves — keeps each screen's action and
/// the key hints, down to the smallest size; smaller than that, it says so.
@Suite(.enabled(if: PseudoTerminal.isAvailable, "openpty is not available here"))
struct SmallTerminalTests {
    @Test(arguments: [(40, 15), (40, 12), (30, 10)])
    func theActionAndTheHintsStayVisible(columns: Int, rows: Int) throws {
        let session = try TerminalSession(columns: columns, rows: rows)
        defer { session.stop() }
        let screen = VisibleScreen(columns: columns, rows: rows)
        try screen.waitFor(["Enter expand"], in: session)
        session.terminal.send("\r")
        try screen.waitFor(["Buy with Apple Pay", "Pay in app ]", "q quit"], in: session)
        session.terminal.send("a")
        try screen.waitFor(["[ Confirm with Side", "Enter confirm", "q quit"], in: session)
        session.terminal.send("\r")
        try screen.waitFor(["✓ Done", "[ Done ]"], in: session)
        session.terminal.send("\r")
        #expect(try session.waitForExit() == 0)
    }

    @Test func aWindowTooSmallSaysSoAndCtrlCStillLeaves() throws {
        let session = try TerminalSession(columns: 24, rows: 8)
        defer { session.stop() }
        let screen = VisibleScreen(columns: 24, rows: 8)
        try screen.waitFor(["Window too small", "now 24×8", "Ctrl-C leaves"], in: session)
        session.terminal.send("\u{03}")
        #expect(try session.waitForExit() == 130)
    }

    @Test func theLogUnderTheScreenStartsAtTheBoxsLeftEdge() throws {
        // Tall enough for several log lines under the sheet.
        let session = try TerminalSession(columns: 80, rows: 40)
        defer { session.stop() }
        let screen = VisibleScreen(columns: 80, rows: 40)
        try screen.waitFor(["Enter expand"], in: session)
        session.terminal.send("\r")
        try screen.waitFor(["Pay in app ]"], in: session)
        session.terminal.send("a")
        try screen.waitFor(["Confirm with Side"], in: session)
        session.terminal.send("4\r")
        try screen.waitFor(["• Declined"], in: session)
        let lines = screen.lines(session.output)
        let corner = try #require(lines.first { $0.contains("┌") })
        let boxColumn = corner.prefix { $0 != "┌" }.count
        // The log's lines start with "• " (a card's "•••• 4242" is inside the box).
        let logLines = lines.filter { $0.drop { $0 == " " }.hasPrefix("• ") }
        #expect(logLines.count >= 2, "\(lines.joined(separator: "\n"))")
        for line in logLines {
            #expect(line.prefix { $0 != "•" }.count == boxColumn, "the log line starts under the box's corner: \(line)")
        }
        session.terminal.send("q")
        #expect(try session.waitForExit() == 0)
    }
}

/// The screen a terminal shows after the checkout's output: the cursor moves (`ESC[r;cH`),
/// erasures (`ESC[K`, `ESC[J`, `ESC[2J`) and text the frames are made of; other sequences
/// (modes, colours) change nothing visible here.
struct VisibleScreen {
    let columns: Int
    let rows: Int

    /// The visible rows, as text, after `output`.
    func lines(_ output: String) -> [String] {
        var grid = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
        var (row, column) = (0, 0)
        var characters = output[...]
        func clear(_ range: Range<Int>, row: Int) {
            guard grid.indices.contains(row) else { return }
            for index in range where grid[row].indices.contains(index) { grid[row][index] = " " }
        }
        while let character = characters.first {
            characters = characters.dropFirst()
            switch character {
            case "\u{1B}":
                guard characters.first == "[" else { characters = characters.dropFirst(); continue }
                characters = characters.dropFirst()
                let parameters = characters.prefix { !$0.isLetter }
                characters = characters.dropFirst(parameters.count)
                guard let final = characters.first else { break }
                characters = characters.dropFirst()
                let numbers = parameters.split(separator: ";").map { Int($0) ?? 1 }
                switch final {
                case "H":
                    row = (numbers.first ?? 1) - 1
                    column = (numbers.dropFirst().first ?? 1) - 1
                case "K":
                    clear(column..<columns, row: row)
                case "J" where parameters == "2":
                    for index in 0..<rows { clear(0..<columns, row: index) }
                case "J":
                    clear(column..<columns, row: row)
                    for index in (row + 1)..<max(rows, row + 1) { clear(0..<columns, row: index) }
                default:
                    break
                }
            case "\r":
                column = 0
            case "\n", "\r\n":
                row += 1
                column = 0
            default:
                if grid.indices.contains(row), grid[row].indices.contains(column) { grid[row][column] = character }
                column += 1
            }
        }
        return grid.map { String($0) }
    }

    /// Waits until every text in `texts` is on the screen at once.
    func waitFor(_ texts: [String], in session: TerminalSession, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let screen = lines(session.output).joined(separator: "\n")
            if texts.allSatisfy(screen.contains) { return }
            guard Date() < deadline else {
                throw CheckoutTestTimeout(description: "waited \(Int(timeout)) s for \(texts) on the \(columns)×\(rows) screen:\n\(screen)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
