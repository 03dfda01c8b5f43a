/// How many terminal columns text occupies, the way terminals (wcwidth) and the banner layout
/// count them: CJK ideographs, Hangul, full-width forms and emoji take two columns; combining
/// marks, zero-width joiners and variation selectors take none; everything else takes one.
///
/// Measured per grapheme cluster (`Character`), so `e` + U+0301 is one column, a family emoji
/// joined with ZWJ is two, and a flag (two regional indicators) is two.
package enum DisplayWidth {
    /// The columns `text` occupies on one line. Control characters count as zero: callers
    /// should pass text through `sanitizedForTerminal` first.
    package static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The columns one grapheme cluster occupies: 0, 1 or 2.
    package static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // An emoji cluster is two columns whatever follows: ZWJ sequences, skin tones, flags,
        // keycaps, and text-default symbols turned into emoji by U+FE0F.
        if first.properties.isEmojiPresentation { return 2 }
        if first.properties.isEmoji && scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x20E3 }) {
            return 2
        }
        return width(of: first)
    }

    /// The width of a single scalar starting a cluster.
    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .control, .nonspacingMark, .enclosingMark, .format, .lineSeparator, .paragraphSeparator:
            return 0
        default:
            break
        }
        if value == 0x200B || (0x1160...0x11FF).contains(value) { return 0 }  // ZWSP, Hangul medial/final jamo
        return isWide(value) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth code points (Unicode's EastAsianWidth W and F), as ranges.
    /// Emoji with default emoji presentation are handled by the scalar property instead.
    private static func isWide(_ value: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// Sorted, non-overlapping.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo initial consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo, Kanbun, CJK compatibility
        0x3400...0x4DBF,  // CJK extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // full-width forms
        0xFFE0...0xFFE6,  // full-width signs
        0x16FE0...0x16FE4,  // ideographic symbols
        0x17000...0x18AFF,  // Tangut
        0x1B000...0x1B2FF,  // Kana supplement and extensions, Nushu
        0x1F200...0x1F202,  // enclosed ideographic supplement
        0x1F210...0x1F23B,
        0x1F240...0x1F248,
        0x1F250...0x1F251,
        0x20000...0x2FFFD,  // CJK extensions B–F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extension G and later
    ]
}

extension String {
    /// The text with everything that could take over a terminal removed: C0/C1 control
    /// characters (ESC starts colour and cursor sequences) and the bidirectional overrides that
    /// reorder what is shown. Tabs become a space; line breaks are kept only when
    /// `keepingLineBreaks` (a body's paragraphs), otherwise they become a space too.
    ///
    /// Notification text comes from outside, so it is sanitized before it is drawn.
    package func sanitizedForTerminal(keepingLineBreaks: Bool = false) -> String {
        var result = String.UnicodeScalarView()
        var previousWasCarriageReturn = false
        for scalar in unicodeScalars {
            defer { previousWasCarriageReturn = scalar == "\r" }
            switch scalar.value {
            case 0x0A where previousWasCarriageReturn:
                continue  // the \n of \r\n: the \r already broke the line
            case 0x0A, 0x0D, 0x2028, 0x2029:
                result.append(keepingLineBreaks ? "\n" : " ")
            case 0x09:
                result.append(" ")
            case 0x00...0x1F, 0x7F...0x9F:
                continue
            case 0x202A...0x202E, 0x2066...0x2069:
                continue  // bidi embeddings, overrides and isolates
            default:
                result.append(scalar)
            }
        }
        return String(result)
    }
}
