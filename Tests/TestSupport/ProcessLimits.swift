import Foundation
import Glibc

/// What tests that open many connections or bound a server's memory need of the system.
public enum ProcessLimits {
    /// Raises this process's descriptor limit to at least `count` (towards the hard limit);
    /// false when the hard limit is lower.
    public static func raiseDescriptorLimit(toAtLeast count: Int) -> Bool {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < rlim_t(count) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur >= rlim_t(count)
    }

    /// A `Vm…` figure of process `pid` in bytes, from /proc (`VmRSS` now, `VmHWM` its peak);
    /// 0 when it cannot be read.
    public static func memory(of pid: Int32, _ field: String = "VmRSS") -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return 0 }
        return kilobytes * 1024
    }
}
