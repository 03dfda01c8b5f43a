/// Breaks text into lines of at most a given number of terminal columns, the way a banner lays
/// out its body: words wrap at spaces, CJK text (which has no spaces) may break between any two
/// characters, a word longer than a line is split, and line breaks in the text start new lines.
/// Widths are display columns (`DisplayWidth`), not characters or bytes.
package enum TextWrapper {
    /// The ellipsis that ends a cut line: one column.
    package static let ellipsis: Character = "…"

    /// Lines of `text` at most `width` columns wide (`width` below 1 counts as 1). With
    /// `maximumLines`, the text is cut to that many lines and the last one ends with "…".
    package static func wrap(_ text: String, width: Int, maximumLines: Int? = nil) -> WrappedText {
        let width = max(width, 1)
        var lines: [String] = []
        let paragraphs = text.sanitizedForTerminal(keepingLineBreaks: true)
            .split(separator: "\n", omittingEmptySubsequences: false)
        for paragraph in paragraphs {
            lines += wrapParagraph(paragraph, width: width)
        }
        // Trailing empty lines (a body ending in "\n") would only take banner space.
        while lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        guard let maximumLines, maximumLines >= 1, lines.count > maximumLines else {
            return WrappedText(lines: lines, isTruncated: false)
        }
        var kept = Array(lines.prefix(maximumLines))
        kept[kept.count - 1] = endingWithEllipsis(kept[kept.count - 1], width: width)
        return WrappedText(lines: kept, isTruncated: true)
    }

    /// `line` shortened until it and the ellipsis fit in `width` columns, then the ellipsis.
    static func endingWithEllipsis(_ line: String, width: Int) -> String {
        var characters = Array(line)
        var used = DisplayWidth.of(line)
        let ellipsisWidth = DisplayWidth.of(ellipsis)
        while let last = characters.last, used + ellipsisWidth > width || last == " " {
            used -= DisplayWidth.of(last)
            characters.removeLast()
        }
        return String(characters) + String(ellipsis)
    }

    /// A piece the line breaker places whole: a word, or one wide character (CJK text breaks
    /// between characters). `spaceBefore` says whether a space separated it from the previous one.
    private struct Piece {
        var text: String
        var width: Int
        var spaceBefore: Bool
    }

    private static func pieces(of paragraph: Substring) -> [Piece] {
        var pieces: [Piece] = []
        var word = ""
        var wordWidth = 0
        var sawSpace = false
        func flushWord() {
            guard !word.isEmpty else { return }
            pieces.append(Piece(text: word, width: wordWidth, spaceBefore: sawSpace))
            word = ""
            wordWidth = 0
            sawSpace = false
        }
        for character in paragraph {
            if character == " " || character.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
                flushWord()
                sawSpace = true
                continue
            }
            let columns = DisplayWidth.of(character)
            if columns == 2 {
                flushWord()
                pieces.append(Piece(text: String(character), width: 2, spaceBefore: sawSpace))
                sawSpace = false
            } else {
                word.append(character)
                wordWidth += columns
            }
        }
        flushWord()
        return pieces
    }

    private static func wrapParagraph(_ paragraph: Substring, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for piece in pieces(of: paragraph) {
            let separator = (piece.spaceBefore && !line.isEmpty) ? 1 : 0
            if lineWidth + separator + piece.width <= width {
                if separator == 1 { line += " " }
                line += piece.text
                lineWidth += separator + piece.width
                continue
            }
            if !line.isEmpty {
                lines.append(line)
                line = ""
                lineWidth = 0
            }
            if piece.width <= width {
                line = piece.text
                lineWidth = piece.width
                continue
            }
            // A word wider than the line: split it between characters.
            for character in piece.text {
                let columns = DisplayWidth.of(character)
                if lineWidth + columns > width, !line.isEmpty {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                line.append(character)
                lineWidth += columns
            }
        }
        lines.append(line)
        return lines
    }
}

/// Text broken into lines, and whether it had to be cut to fit.
package struct WrappedText: Sendable, Equatable {
    package let lines: [String]
    /// True when lines were dropped and the last kept line ends with "…".
    package let isTruncated: Bool
}

extension String {
    /// The string padded with spaces on the right to `width` display columns (unchanged when
    /// it is already that wide or wider).
    package func padded(toColumns width: Int) -> String {
        let missing = width - DisplayWidth.of(self)
        return missing > 0 ? self + String(repeating: " ", count: missing) : self
    }

    /// The string cut to at most `width` display columns, ending with "…" when it was cut.
    package func truncated(toColumns width: Int) -> String {
        guard DisplayWidth.of(self) > width else { return self }
        return TextWrapper.endingWithEllipsis(self, width: width)
    }
}
