import PayPanel
import Testing

@Suite struct DisplayWidthTests {
    @Test(arguments: [
        ("abc", 3),
        ("日本語", 6),  // CJK ideographs: two columns each
        ("한국어", 6),  // Hangul syllables
        ("ｆｕｌｌ", 8),  // full-width Latin
        ("e\u{301}", 1),  // e + combining acute: one cluster, one column
        ("cafe\u{301}", 4),
        ("🙂", 2),
        ("👨‍👩‍👧", 2),  // ZWJ family: one cluster
        ("👍🏽", 2),  // skin-tone modifier
        ("🇫🇷", 2),  // flag: two regional indicators
        ("❤️", 2),  // text-default heart made emoji by U+FE0F
        ("1️⃣", 2),  // keycap
        ("a\u{200B}b", 2),  // zero-width space
        ("", 0),
    ])
    func measuresTerminalColumns(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
    }

    @Test func sanitizingRemovesEscapeSequencesAndBidiOverrides() {
        let hostile = "Pay\u{1B}[2J now\u{202E}gnp.exe\u{07}"
        #expect(hostile.sanitizedForTerminal() == "Pay[2J nowgnp.exe")
    }

    @Test func sanitizingKeepsLineBreaksOnlyWhenAsked() {
        #expect("a\r\nb\tc".sanitizedForTerminal() == "a b c")
        #expect("a\r\nb\nc".sanitizedForTerminal(keepingLineBreaks: true) == "a\nb\nc")
    }

    @Test func paddingAndTruncationCountColumnsNotCharacters() {
        #expect("日本".padded(toColumns: 6) == "日本  ")
        #expect("日本語テキスト".truncated(toColumns: 7) == "日本語…")
        #expect("short".truncated(toColumns: 10) == "short")
    }
}
