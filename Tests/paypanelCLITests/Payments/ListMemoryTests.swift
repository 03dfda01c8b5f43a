import Foundation
import PayPanel
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct SpawnFailure: Error {
    let code: Int32
}

/// `payments list` streams: its peak memory does not grow with the number of intents.
@Suite struct ListMemoryTests {
    /// A payments database holding `count` intents, written with one SQL statement.
    static func database(in directory: TemporaryDirectory, name: String, count: Int) throws -> String {
        let path = directory.file(name)
        let database = try Database.openMigrated(path: path)
        try database.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO intents (id, status, amount, currency, capture_method, order_reference, version, created_at, updated_at)
            SELECT printf('pi_list%017d', i), 'requires_payment_method', 1000 + i, 'USD', 'automatic', 'order-' || i, 1,
                   1795000000000 + i, 1795000000000 + i
            FROM n
            """, [count])
        return path
    }

    /// Runs the binary with `arguments`, output discarded; returns its exit status and peak
    /// resident memory in KiB (from wait4's rusage).
    static func peakMemory(_ arguments: [String]) throws -> (status: Int32, kilobytes: Int) {
        let argv = [CLIRunner.binary.path(percentEncoded: false)] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw SpawnFailure(code: spawned) }
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let exitStatus = (status >> 8) & 0xFF
        return (exitStatus, usage.ru_maxrss)
    }

    @Test func listingManyIntentsNeedsNoMoreMemoryThanListingAFew() throws {
        let directory = try TemporaryDirectory()
        let few = try Self.database(in: directory, name: "few.sqlite", count: 100)
        let many = try Self.database(in: directory, name: "many.sqlite", count: 30_000)
        for format in [[], ["--json"]] {
            let small = try Self.peakMemory(["payments", "list", "--db", few] + format)
            let large = try Self.peakMemory(["payments", "list", "--db", many] + format)
            #expect(small.status == 0 && large.status == 0)
            // 30,000 intents as JSON are about 12 MB of output; holding them would show.
            #expect(large.kilobytes - small.kilobytes < 4 * 1024, "peak \(small.kilobytes) KiB for 100 rows, \(large.kilobytes) KiB for 30,000 (\(format))")
        }
    }
}
