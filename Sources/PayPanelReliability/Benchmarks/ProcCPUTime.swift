import Foundation

/// CPU time the kernel has charged, read from /proc (Linux). Benchmarks report it beside their
/// rates: on a shared machine the CPU time one unit of work costs moves much less with the
/// load than the units done per second, and per thread it shows which thread bounds a rate.
package enum ProcCPUTime {
    /// `utime` + `stime` of a `/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat` file, in
    /// seconds; nil when it cannot be read.
    package static func seconds(statFile path: String) -> Double? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let nameEnd = stat.lastIndex(of: ")") else { return nil }
        // After the command name (which may hold spaces and parentheses): state is field 3,
        // utime 14, stime 15.
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The CPU seconds used so far by the threads named `name` (their `comm`, as `OwnThread`
    /// names them; a thread that has ended no longer counts) of process `pid` (this one unless
    /// given).
    package static func threadsNamed(_ name: String, inProcess pid: String = "self") -> Double {
        threads(inProcess: pid).values.filter { $0.name == name }.reduce(0) { $0 + $1.seconds }
    }

    /// Each thread of process `pid` (this one unless given), by thread id: its name (`comm`)
    /// and the CPU seconds it has used so far.
    package static func threads(inProcess pid: String = "self") -> [String: (name: String, seconds: Double)] {
        let tasks = "/proc/\(pid)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return [:] }
        var found: [String: (name: String, seconds: Double)] = [:]
        for thread in threads {
            guard let comm = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8),
                let seconds = seconds(statFile: "\(tasks)/\(thread)/stat")
            else { continue }
            found[thread] = (comm.trimmingCharacters(in: .newlines), seconds)
        }
        return found
    }

    /// The CPU seconds each kind of thread used from `before` to `after` (two `threads`
    /// readings of one process). Threads named alike but for a trailing `-<number>`
    /// (`handler-0` … `handler-7`) are one kind, `handler`. A thread that started meanwhile
    /// counts from zero; one that ended before `after` is missing (a WAL flusher that went idle),
    /// so the kinds can add up to less than the process's own figure.
    package static func byKind(
        from before: [String: (name: String, seconds: Double)], to after: [String: (name: String, seconds: Double)]
    ) -> [String: Double] {
        var kinds: [String: Double] = [:]
        for (thread, now) in after {
            var kind = Substring(now.name)
            if let dash = kind.lastIndex(of: "-"), dash != kind.startIndex, kind[kind.index(after: dash)...].allSatisfy(\.isNumber),
                kind.index(after: dash) != kind.endIndex {
                kind = kind[..<dash]
            }
            kinds[String(kind), default: 0] += now.seconds - (before[thread]?.seconds ?? 0)
        }
        return kinds
    }

    /// The CPU seconds this whole process has used so far, every thread's, ended ones included.
    package static func thisProcess() -> Double { seconds(statFile: "/proc/self/stat") ?? 0 }
}
