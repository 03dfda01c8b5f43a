import PayPanel
import PayPanelDemo

/// Turns the bytes a terminal sends into keys: printable text (UTF-8, split across reads or
/// not), Enter, Tab, Shift-Tab, Backspace, the arrows (`ESC [ A` and the application-mode
/// `ESC O A`, with or without modifiers), Esc, Ctrl-C and Ctrl-D. Other control bytes and
/// escape sequences (function keys, Delete) are dropped.
///
/// A lone ESC is ambiguous — the Esc key, or the start of a sequence still in flight — so it
/// is held: the next bytes decide, or `flushPendingEscape()` after a short quiet time makes it
/// the Esc key.
struct KeyDecoder {
    private var buffer: [UInt8] = []

    /// True when bytes wait for the rest of a sequence (call `flushPendingEscape` after ~30 ms).
    var hasPendingBytes: Bool { !buffer.isEmpty }

    /// The keys in `bytes` (and whatever was pending before them).
    mutating func decode(_ bytes: [UInt8]) -> [DeviceKey] {
        buffer += bytes
        var keys: [DeviceKey] = []
        var index = 0
        while index < buffer.count {
            let byte = buffer[index]
            switch byte {
            case 0x1B:
                guard index + 1 < buffer.count else {
                    // Maybe the start of a sequence whose rest is still in flight.
                    buffer.removeFirst(index)
                    return keys
                }
                let next = buffer[index + 1]
                guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else {
                    keys.append(.escape)  // Esc, then (Alt+)key: take Esc alone
                    index += 1
                    continue
                }
                // CSI / SS3: parameters, then a final byte in 0x40…0x7E.
                var end = index + 2
                while end < buffer.count, !(0x40...0x7E).contains(buffer[end]) { end += 1 }
                guard end < buffer.count else {
                    buffer.removeFirst(index)
                    return keys
                }
                if let key = Self.sequenceKey(final: buffer[end]) { keys.append(key) }
                index = end + 1
            case 0x0D, 0x0A: keys.append(.enter); index += 1
            case 0x09: keys.append(.tab); index += 1
            case 0x7F, 0x08: keys.append(.backspace); index += 1
            case 0x03: keys.append(.interrupt); index += 1
            case 0x04: keys.append(.endOfInput); index += 1
            case 0x00..<0x20: index += 1  // other control keys do nothing
            default:
                let length = Self.utf8Length(leading: byte)
                guard length > 0 else { index += 1; continue }  // a stray continuation byte
                guard index + length <= buffer.count else {
                    buffer.removeFirst(index)
                    return keys
                }
                let scalarBytes = buffer[index..<index + length]
                if let text = String(validating: scalarBytes, as: UTF8.self), let character = text.first {
                    keys.append(.character(character))
                }
                index += length
            }
        }
        buffer.removeAll()
        return keys
    }

    /// Ends a wait for the rest of a sequence: a held ESC becomes the Esc key; anything else
    /// held (a cut sequence, half a character) is dropped.
    mutating func flushPendingEscape() -> [DeviceKey] {
        defer { buffer.removeAll() }
        return buffer.first == 0x1B ? [.escape] : []
    }

    private static func sequenceKey(final: UInt8) -> DeviceKey? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "Z"): .backTab
        case UInt8(ascii: "M"): .enter  // keypad Enter in application mode (ESC O M)
        default: nil
        }
    }

    /// The length of the UTF-8 sequence `leading` starts, or 0 when it cannot start one.
    private static func utf8Length(leading: UInt8) -> Int {
        switch leading {
        case 0x20..<0x80: 1
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 0
        }
    }
}
