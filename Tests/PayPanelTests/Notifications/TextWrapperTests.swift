import PayPanel
import Testing

@Suite struct TextWrapperTests {
    @Test func wordsWrapAtSpaces() {
        let wrapped = TextWrapper.wrap("the quick brown fox jumps", width: 10)
        #expect(wrapped.lines == ["the quick", "brown fox", "jumps"])
        #expect(!wrapped.isTruncated)
    }

    @Test func cjkTextBreaksBetweenCharactersByColumns() {
        // Each ideograph is two columns: five fit in ten.
        #expect(TextWrapper.wrap("支付宝和微信支付都可以用", width: 10).lines == ["支付宝和微", "信支付都可", "以用"])
    }

    @Test func aWordLongerThanTheLineIsSplit() {
        #expect(TextWrapper.wrap("abcdefghijkl xy", width: 5).lines == ["abcde", "fghij", "kl xy"])
    }

    @Test func lineBreaksInTheTextAreKept() {
        #expect(TextWrapper.wrap("one\ntwo\r\n\nfour\n", width: 20).lines == ["one", "two", "", "four"])
    }

    @Test func cutTextEndsWithAnEllipsisWithinTheWidth() {
        let wrapped = TextWrapper.wrap("aaaa bbbb cccc dddd eeee", width: 9, maximumLines: 2)
        #expect(wrapped.lines == ["aaaa bbbb", "cccc ddd…"])  // cut inside the word, as iOS does
        #expect(wrapped.isTruncated)
    }

    @Test func anEllipsisAfterAWideCharacterStillFits() {
        let wrapped = TextWrapper.wrap("日本語日本語日本語", width: 6, maximumLines: 1)
        #expect(wrapped.lines == ["日本…"])
        #expect(DisplayWidth.of(wrapped.lines[0]) == 5)
    }

    @Test func textThatFitsIsNotMarkedCut() {
        let wrapped = TextWrapper.wrap("short", width: 9, maximumLines: 1)
        #expect(wrapped.lines == ["short"])
        #expect(!wrapped.isTruncated)
    }

    @Test func combiningMarksStayWithTheirLetter() {
        // "é" written e + U+0301 is one column; splitting must never separate the mark.
        let text = String(repeating: "e\u{301}", count: 7)
        let lines = TextWrapper.wrap(text, width: 3).lines
        #expect(lines.map { DisplayWidth.of($0) } == [3, 3, 1])
        #expect(lines.allSatisfy { $0.unicodeScalars.first != "\u{301}" })
    }

    /// Whatever the text and width, no line is wider than the width and the cut respects the
    /// line count.
    @Test(arguments: [8, 9, 13, 20, 37])
    func noLineIsEverWiderThanTheWidth(width: Int) {
        let texts = [
            "Choose 5.00, 10.00 or 20.00 USD and pay with Apple Pay without leaving the notification.",
            "今日だけ：アップルペイで支付宝和微信支付 🙂🙂 de l'été déjà payé 👨‍👩‍👧 🇫🇷 ok",
            "Supercalifragilisticexpialidocious-and-more-and-more-and-more",
            "tabs\tand\u{1B}[31mescapes\u{202E} and  double  spaces",
        ]
        for text in texts {
            let wrapped = TextWrapper.wrap(text, width: width, maximumLines: 3)
            #expect(wrapped.lines.count <= 3)
            #expect(wrapped.lines.allSatisfy { DisplayWidth.of($0) <= width }, "\(wrapped.lines)")
            #expect(wrapped.lines.allSatisfy { !$0.contains("\u{1B}") && !$0.contains("\u{202E}") })
        }
    }
}
