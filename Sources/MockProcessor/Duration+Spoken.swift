import Foundation

extension Duration {
    /// For messages and docs: `250 ms`, `1.5 s`, `25 s`, `10 min`, `2 h`, `7 days`.
    var spoken: String {
        let milliseconds = wholeMilliseconds
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        guard milliseconds % 1000 == 0 else { return "\(Double(milliseconds) / 1000) s" }
        let seconds = milliseconds / 1000
        if seconds % 86_400 == 0 { return seconds == 86_400 ? "1 day" : "\(seconds / 86_400) days" }
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 && seconds >= 120 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
