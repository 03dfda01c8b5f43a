import PayPanel
import PayPanelDemo
import Testing

@testable import paypanel

/// The terminal's bytes as keys.
@Suite struct KeyDecoderTests {
    @Test(arguments: [
        ([UInt8(ascii: "a")], [DeviceKey.character("a")]),
        ([0x0D], [.enter]),
        ([0x0A], [.enter]),
        ([0x09], [.tab]),
        ([0x1B, 0x5B, 0x5A], [.backTab]),
        ([0x7F], [.backspace]),
        ([0x08], [.backspace]),
        ([0x03], [.interrupt]),
        ([0x04], [.endOfInput]),
        ([0x1B, 0x5B, 0x41], [.up]),
        ([0x1B, 0x5B, 0x42], [.down]),
        ([0x1B, 0x5B, 0x43], [.right]),
        ([0x1B, 0x5B, 0x44], [.left]),
        ([0x1B, 0x4F, 0x41], [.up]),  // application cursor mode
        ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43], [.right]),  // Ctrl-→
        ([0x1B, 0x5B, 0x33, 0x7E], []),  // Delete: nothing
        ([0x1A], []),  // Ctrl-Z: nothing (the signal is off)
        ([0xC3, 0xAB], [.character("ë")]),
        ([0xF0, 0x9F, 0x98, 0x80], [.character("😀")]),
        ([0x1B, UInt8(ascii: "q")], [.escape, .character("q")]),
        ([UInt8(ascii: "1"), 0x1B, 0x5B, 0x42, 0x0D], [.character("1"), .down, .enter]),
    ])
    func decodesKeys(bytes: [UInt8], keys: [DeviceKey]) {
        var decoder = KeyDecoder()
        #expect(decoder.decode(bytes) == keys)
        #expect(!decoder.hasPendingBytes)
    }

    @Test func aLoneEscapeWaitsThenBecomesTheEscKey() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.hasPendingBytes)
        #expect(decoder.flushPendingEscape() == [.escape])
        #expect(!decoder.hasPendingBytes)
    }

    @Test func aSequenceSplitAcrossReadsIsOneKey() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode([0x5B]) == [])
        #expect(decoder.decode([0x41, UInt8(ascii: "x")]) == [.up, .character("x")])
    }

    @Test func aCharacterSplitAcrossReadsIsOneKey() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0xE2, 0x82]) == [])
        #expect(decoder.decode([0xAC]) == [.character("€")])
    }

    @Test func invalidUTF8IsDropped() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x80, 0xFF, UInt8(ascii: "a")]) == [.character("a")])
    }

}

/// Frames: one string, cursor moves, colour only when allowed.
@Suite struct TerminalFrameTests {
    @Test func hintsWrapToTheTerminal() {
        let lines = TerminalFrame.wrapHints(["←/→ or 1-3 amount", "Tab/↑/↓ move", "Enter choose", "a Apple Pay", "p Pay in app", "Esc back", "q quit"], width: 40)
        #expect(lines == ["←/→ or 1-3 amount · Tab/↑/↓ move", "Enter choose · a Apple Pay", "p Pay in app · Esc back · q quit"])
    }

    @Test func aFrameIsOneStringThatMovesTheCursorAndColoursOnlyWhenAllowed() {
        let box = [ScreenLine("┌───┐", style: .frame), ScreenLine("│ x │", style: .focused), ScreenLine("└───┘", style: .frame)]
        let plain = TerminalFrame(usesColor: false).compose(box: box, hints: ["q quit"], footer: [], columns: 30, rows: 10)
        #expect(plain.contains("\u{1B}[2;1H            ┌───┐\u{1B}[K"))
        #expect(!plain.contains("\u{1B}[7m"))
        #expect(plain.hasSuffix("\u{1B}[J"))
        let coloured = TerminalFrame(usesColor: true).compose(box: box, hints: ["q quit"], footer: [], columns: 30, rows: 10)
        #expect(coloured.contains("\u{1B}[1;7mx\u{1B}[0m"))
    }

    @Test func aBoxTooTallLosesSpacingThenItsTopRowsButKeepsItsAction() {
        let box = ["┌────┐", "│ t  │", "├────┤", "│ a  │", "│ b  │", "│    │", "│ Go │", "└────┘"].map {
            ScreenLine($0, style: $0 == "│    │" ? .blank : .frame)
        }
        #expect(TerminalFrame.fitted(box, height: 6).map(\.text) == ["┌────┐", "│ t  │", "│ a  │", "│ b  │", "│ Go │", "└────┘"])
        #expect(TerminalFrame.fitted(box, height: 5).map(\.text) == ["┌────┐", "│ ⋮  │", "│ b  │", "│ Go │", "└────┘"])
        #expect(TerminalFrame.fitted(box, height: 8) == box)
    }

    @Test func aTerminalTooSmallForTheHintsAndABoxSaysWhatItNeeds() {
        let frame = TerminalFrame(usesColor: false).compose(box: [], hints: ["q quit"], footer: [], columns: 40, rows: 4)
        #expect(frame.contains("Window too small") && frame.contains("now 40×4") && frame.contains("needs 40×5"))
    }
}
