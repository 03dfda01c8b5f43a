/// The one rule for text PayPanel shows on one line — a merchant's name, a product label, an
/// order reference, an operator's note: no control character (C0, DEL, C1: they break the line
/// or the terminal it is shown on) and no invisible code point (Unicode's default-ignorables,
/// such as U+200B: they make two different texts look the same). The OpenAPI document states
/// the same rule as a pattern (`OpenAPIDocument.printableTextPattern`).
package enum PrintableText {
    /// True when every scalar of `text` may be shown on one line.
    package static func isPrintableLine(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy(isPrintable)
    }

    /// What a refusal says about `text`, after "the <field> …".
    package static let reason = "contains a control or invisible character: use printable text on one line"

    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value) && !scalar.properties.isDefaultIgnorableCodePoint
    }
}
