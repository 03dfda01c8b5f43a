import Foundation
import PayPanel

/// How long the mock processor takes to answer: a base delay plus or minus a jitter drawn
/// uniformly from a seeded generator, so a run is repeatable for a given seed.
///
/// Written `50ms±20ms` (or `50ms+-20ms`, easier to type), `2s`, `1.5s` or `0`.
public struct Latency: Sendable, Equatable, CustomStringConvertible {
    /// The centre of the delay.
    public let base: Duration
    /// The largest deviation either way; never more than `base`, so a delay is never negative.
    public let jitter: Duration

    /// No delay at all: the default.
    public static let zero = Latency(checkedBase: .zero, jitter: .zero)

    /// The largest base delay accepted: a minute already means a hung processor.
    public static let maximum = Duration.seconds(60)

    /// A latency from its parts; refuses negative values, a base above `maximum` and a jitter above the base.
    public init(base: Duration, jitter: Duration = .zero) throws(LatencyError) {
        guard base >= .zero, jitter >= .zero else { throw LatencyError(text: "\(base)±\(jitter)", reason: .negative) }
        guard base <= Latency.maximum else {
            throw LatencyError(text: Latency.format(base), reason: .tooLarge)
        }
        guard jitter <= base else {
            throw LatencyError(text: Latency.format(base) + "±" + Latency.format(jitter), reason: .jitterAboveBase)
        }
        self.init(checkedBase: base, jitter: jitter)
    }

    private init(checkedBase: Duration, jitter: Duration) {
        self.base = checkedBase
        self.jitter = jitter
    }

    /// Parses `<duration>[±<duration>]`, where a duration is whole milliseconds (`50ms`),
    /// seconds with up to three decimals (`1.5s`), or `0`.
    public static func parse(_ text: String) throws(LatencyError) -> Latency {
        guard !text.isEmpty else { throw LatencyError(text: text, reason: .empty) }
        let parts: [Substring]
        if text.contains("±") {
            parts = text.split(separator: "±", omittingEmptySubsequences: false)
        } else {
            parts = text.components(separatedBy: "+-").map { Substring($0) }
        }
        guard parts.count <= 2 else { throw LatencyError(text: text, reason: .malformed) }
        let base = try duration(parts[0], in: text)
        let jitter = parts.count == 2 ? try duration(parts[1], in: text) : .zero
        guard jitter <= base else { throw LatencyError(text: text, reason: .jitterAboveBase) }
        guard base <= maximum else { throw LatencyError(text: text, reason: .tooLarge) }
        return Latency(checkedBase: base, jitter: jitter)
    }

    private static func duration(_ part: Substring, in text: String) throws(LatencyError) -> Duration {
        if part == "0" { return .zero }
        if part.isEmpty { throw LatencyError(text: text, reason: .malformed) }
        if part.contains(where: { $0.isWhitespace }) { throw LatencyError(text: text, reason: .whitespace) }
        let number: Substring
        let isSeconds: Bool
        if part.hasSuffix("ms") {
            number = part.dropLast(2)
            isSeconds = false
        } else if part.hasSuffix("s") {
            number = part.dropLast(1)
            isSeconds = true
        } else {
            throw LatencyError(text: text, reason: .missingUnit(String(part)))
        }
        let pieces = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { throw LatencyError(text: text, reason: .malformed) }
        // Whole milliseconds are the resolution: `1.5s` is fine, `0.5ms` or `1.2345s` is not.
        let fraction = pieces.count == 2 ? String(pieces[1]) : ""
        guard isSeconds ? fraction.count <= 3 : fraction.isEmpty else {
            throw LatencyError(text: text, reason: .tooPrecise)
        }
        // More than 7 integer digits is beyond any limit; refusing early avoids overflow.
        guard pieces[0].count <= 7, let whole = Int64(pieces[0]) else { throw LatencyError(text: text, reason: .tooLarge) }
        let paddedFraction = Int64(fraction + String(repeating: "0", count: 3 - fraction.count)) ?? 0
        return isSeconds ? .milliseconds(whole * 1000 + paddedFraction) : .milliseconds(whole)
    }

    /// The delay for one call: `base` plus a uniform draw from `-jitter...jitter` at microsecond
    /// resolution, from the caller's seeded generator.
    func delay(using generator: inout SeededRandomNumberGenerator) -> Duration {
        let jitterMicroseconds = jitter.wholeMicroseconds
        guard jitterMicroseconds > 0 else { return base }
        let span = UInt64(2 * jitterMicroseconds + 1)
        // Modulo bias is at most span / 2^64: irrelevant for delays.
        let offset = Int64(generator.next() % span) - jitterMicroseconds
        return base + .microseconds(offset)
    }

    /// `50ms±20ms`, `1.5s`, `0`.
    public var description: String {
        jitter == .zero ? Latency.format(base) : Latency.format(base) + "±" + Latency.format(jitter)
    }

    static func format(_ duration: Duration) -> String {
        let milliseconds = duration.wholeMilliseconds
        if milliseconds == 0 { return "0" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        return "\(milliseconds)ms"
    }
}

/// Why a latency was refused.
public struct LatencyError: PayPanelError, Equatable {
    /// What exactly was wrong.
    public enum Reason: Sendable, Equatable {
        case empty
        case malformed
        case whitespace
        case missingUnit(String)
        case tooPrecise
        case tooLarge
        case negative
        case jitterAboveBase
    }

    /// The text as given.
    public let text: String
    public let reason: Reason

    public var code: String { "invalid_latency" }

    public var message: String {
        let shown = JSONWriter.quoted(text)
        switch reason {
        case .empty:
            return "the latency is empty: write a delay such as 50ms, or 50ms±20ms for jitter"
        case .malformed:
            return "latency \(shown) is not <delay> or <delay>±<jitter>: write it like 50ms±20ms, 1.5s or 0"
        case .whitespace:
            return "latency \(shown) contains white space: write it without spaces, like 50ms±20ms"
        case .missingUnit(let part):
            return "latency \(shown): \(JSONWriter.quoted(part)) has no unit: add ms or s, like 50ms"
        case .tooPrecise:
            return "latency \(shown) is finer than a millisecond: use whole ms, or s with at most 3 decimals"
        case .tooLarge:
            return "latency \(shown) is above the \(Latency.format(Latency.maximum)) maximum: a processor that slow is a timeout (use the TIMEOUT_* or SLOW_<n>S triggers)"
        case .negative:
            return "latency \(shown) is negative: delays and jitters are zero or more"
        case .jitterAboveBase:
            return "latency \(shown) has a jitter larger than its delay, which would make delays negative: make the jitter at most the delay"
        }
    }
}
