import Foundation

/// ISO-8601 timestamps, parsed strictly and always written in UTC.
///
/// Accepted: `2026-11-29T14:05:00Z`, `2026-11-29T14:05:00.250Z`, `2026-11-29T16:05:00+02:00`.
/// Written: `2026-11-29T14:05:00Z` (milliseconds only when there are some).
package enum Timestamp {
    package static func parse(_ text: String) throws(TimestampError) -> Date {
        let bytes = Array(text.utf8)
        var position = 0
        func fail() -> TimestampError { TimestampError(text: text) }
        func digits(_ count: Int) throws(TimestampError) -> Int {
            guard position + count <= bytes.count else { throw fail() }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[position]
                guard byte >= 0x30 && byte <= 0x39 else { throw fail() }
                value = value * 10 + Int(byte - 0x30)
                position += 1
            }
            return value
        }
        func expect(_ character: UInt8) throws(TimestampError) {
            guard position < bytes.count, bytes[position] == character else { throw fail() }
            position += 1
        }
        let year = try digits(4)
        try expect(UInt8(ascii: "-"))
        let month = try digits(2)
        try expect(UInt8(ascii: "-"))
        let day = try digits(2)
        guard position < bytes.count, bytes[position] == UInt8(ascii: "T") || bytes[position] == UInt8(ascii: " ") else {
            throw fail()
        }
        position += 1
        let hour = try digits(2)
        try expect(UInt8(ascii: ":"))
        let minute = try digits(2)
        try expect(UInt8(ascii: ":"))
        let second = try digits(2)
        var milliseconds = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            var scale = 100
            var any = false
            while position < bytes.count, bytes[position] >= 0x30 && bytes[position] <= 0x39 {
                milliseconds += Int(bytes[position] - 0x30) * scale
                scale /= 10
                position += 1
                any = true
            }
            guard any else { throw fail() }
        }
        var offsetSeconds = 0
        guard position < bytes.count else { throw fail() }
        switch bytes[position] {
        case UInt8(ascii: "Z"):
            position += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[position] == UInt8(ascii: "-") ? -1 : 1
            position += 1
            let offsetHours = try digits(2)
            try expect(UInt8(ascii: ":"))
            let offsetMinutes = try digits(2)
            guard offsetHours <= 23, offsetMinutes <= 59 else { throw fail() }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            throw fail()
        }
        guard position == bytes.count, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 59
        else { throw fail() }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(milliseconds) / 1000)
    }

    /// `2026-11-29T14:05:00Z`, or `2026-11-29T14:05:00.250Z` when there are milliseconds.
    package static func format(_ date: Date) -> String {
        let totalMilliseconds = epochMilliseconds(date)
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let totalSeconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        let days = Int(floorDivide(totalSeconds, 86_400))
        let secondOfDay = Int(totalSeconds - Int64(days) * 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if milliseconds != 0 { text += ".\(pad(milliseconds, 3))" }
        return text + "Z"
    }

    /// Milliseconds since 1970-01-01T00:00:00Z, the integer form times are stored in.
    package static func epochMilliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    package static func date(epochMilliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(epochMilliseconds) / 1000)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil algorithm (proleptic Gregorian calendar).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(daysSinceEpoch days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp + (mp < 10 ? 3 : -9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A timestamp that is not strict ISO-8601.
package struct TimestampError: PayPanelError, Equatable {
    package let text: String
    package var code: String { "invalid_timestamp" }
    package var message: String {
        "\(JSONWriter.quoted(text)) is not an ISO-8601 time: write it like 2026-11-29T14:05:00Z or 2026-11-29T16:05:00+02:00"
    }
}
