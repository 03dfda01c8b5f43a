import Foundation
import Glibc
import PayPanel
import Testing
import TestSupport

/// What a client and a readiness probe see when the payments database cannot take writes, on
/// the real `paypanel serve` (docs/reliability.md, "Store faults"): every fault is a 503 naming
/// its cause with `Retry-After`, `/readyz` says so, and nothing acknowledged before is lost.
@Suite struct StoreFaultTests {
    /// Intents acknowledged (200) before the fault.
    static func createIntents(_ server: ServerProcess, count: Int) async throws -> [String] {
        var ids: [String] = []
        for _ in 0..<count { ids.append(try await server.createIntent()) }
        return ids
    }

    static func expectFault(_ response: APIResponse, code: String, retryAfter: String, _ comment: Comment? = nil) {
        #expect(response.status == 503, comment)
        #expect(response.errorCode == code, "\(response.text)")
        #expect(response.errorType == "api_error")
        #expect(response.headers["Retry-After"] == retryAfter)
    }

    static func expectAllThere(_ server: ServerProcess, _ ids: [String]) async throws {
        for id in ids {
            let shown = try await server.request("GET", "/v1/payment_intents/\(id)")
            #expect(shown.status == 200, "acknowledged intent \(id) lost: \(shown.text)")
        }
    }

    /// The WAL deleted under a running server (an operator's `rm`): the next write fails with
    /// 503 instead of going into the unlinked file, `/readyz` says so, and after a SIGKILL and a
    /// restart every intent acknowledged before is still there (the first failing write copied
    /// the lost WAL's frames into the database file).
    @Test func aDeletedWALFailsWritesWithA503AndLosesNothingAcknowledged() async throws {
        let server = try await ServerProcess.start()
        let ids = try await Self.createIntents(server, count: 3)
        #expect(try await server.request("GET", "/readyz", key: "").status == 200)
        #expect(unlink(server.databasePath + "-wal") == 0)

        let ready = try await server.request("GET", "/readyz", key: "")
        #expect(ready.status == 503)
        #expect(ready.errorCode == "database_file_missing", "\(ready.text)")
        let create = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#)
        Self.expectFault(create, code: "database_file_missing", retryAfter: "30")
        // Refused, not retried into the unlinked file: the same answer every time.
        let again = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":500,"currency":"USD"}"#)
        Self.expectFault(again, code: "database_file_missing", retryAfter: "30")
        #expect(try await server.request("GET", "/readyz", key: "").status == 503)
        #expect(server.stderr.contains(#""store_fault":"database_file_missing""#), "the operator's log names the fault")

        // A crash: nothing is checkpointed on the way out.
        server.server.crash()
        let restarted = try await ServerProcess.start(directory: server.directory, key: server.key)
        try await Self.expectAllThere(restarted, ids)
        #expect(try await restarted.request("GET", "/readyz", key: "").status == 200)
        #expect(try await restarted.request("POST", "/v1/payment_intents", json: #"{"amount":700,"currency":"USD"}"#).status == 200)
        #expect(await restarted.terminate() == 0)
    }

    /// The database file itself deleted under the server: the same refusal, naming the same cause.
    @Test func aDeletedDatabaseFileFailsWritesWithA503() async throws {
        let server = try await ServerProcess.start()
        _ = try await Self.createIntents(server, count: 1)
        #expect(rename(server.databasePath, server.directory.file("moved-away.sqlite")) == 0)
        Self.expectFault(
            try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#),
            code: "database_file_missing", retryAfter: "30")
        let ready = try await server.request("GET", "/readyz", key: "")
        #expect(ready.status == 503)
        #expect(ready.errorCode == "database_file_missing")
        #expect(await server.terminate() == 0)
    }

    /// Another process holds the write lock past the busy timeout (5 s): 503 `database_busy`
    /// with `Retry-After: 1`; reads still work and the server stays ready (the lock is another
    /// writer's, not a fault of this server's store); once released, writes go through.
    @Test func aHeldWriteLockIsA503BusyAndReadsGoOn() async throws {
        let server = try await ServerProcess.start()
        let ids = try await Self.createIntents(server, count: 2)
        let holder = try Database(path: server.databasePath)
        try holder.execute("BEGIN IMMEDIATE")
        let create = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#)
        Self.expectFault(create, code: "database_busy", retryAfter: "1")
        #expect(try await server.request("GET", "/readyz", key: "").status == 200)
        try await Self.expectAllThere(server, ids)
        try holder.execute("ROLLBACK")
        #expect(try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#).status == 200)
        #expect(await server.terminate() == 0)
    }

    /// A database the server may not write (a file mode it cannot write; as root, which ignores
    /// modes, the server runs as `nobody`): writes are 503 `database_read_only`, `/readyz` too,
    /// and what is stored can still be read.
    @Test func aReadOnlyDatabaseIsA503AndNotReady() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let first = try await ServerProcess.start(directory: directory)
        let ids = try await Self.createIntents(first, count: 2)
        #expect(await first.terminate() == 0)

        let path = first.databasePath
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        var launcher: [String] = []
        if geteuid() == 0 {
            // nobody owns the directory and every other file in it (the processor's ledger, the
            // webhook key, SQLite's -wal/-shm files), but not the database, which stays root's
            // and read-only to others.
            #expect(chown(directory.path, 65534, 65534) == 0)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name != "payments.sqlite" {
                #expect(chown(directory.file(name), 65534, 65534) == 0)
            }
            launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        }
        let server = try await ServerProcess.start(directory: directory, key: first.key, launcher: launcher)
        let create = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#)
        Self.expectFault(create, code: "database_read_only", retryAfter: "30")
        let ready = try await server.request("GET", "/readyz", key: "")
        #expect(ready.status == 503)
        #expect(ready.errorCode == "database_read_only", "\(ready.text)")
        try await Self.expectAllThere(server, ids)
        #expect(await server.terminate() == 0)
        if geteuid() == 0 { _ = chown(directory.path, 0, 0) }
    }

    /// Why the real full-disk test cannot run here, or nil: it mounts a 4 MiB tmpfs in a mount
    /// namespace of the server's own (root, or a kernel that allows it, and util-linux).
    static func tmpfsUnavailable() -> String? {
        guard geteuid() == 0 else { return "not root: mounting a small tmpfs needs a mount namespace (unshare -m) and root" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return "/usr/bin/unshare is missing" }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "/bin/sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]
        guard (try? probe.run()) != nil else { return "unshare cannot be started" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "mounting a tmpfs in a mount namespace is not permitted here"
    }

    /// A real full disk: the database on a 4 MiB tmpfs, filled from outside (through
    /// /proc/PID/root, the server's view of its mounts) until ENOSPC. Writes are 503 `disk_full`
    /// with `Retry-After`, `/readyz` says `disk_full`; once the filler is removed readiness
    /// returns by itself, writes go through, and every intent acknowledged is there.
    @Test func aFullDiskIsA503AndReadinessReturnsWhenSpaceIsFreed() async throws {
        if let reason = Self.tmpfsUnavailable() {
            print("StoreFaultTests.aFullDiskIsA503AndReadinessReturnsWhenSpaceIsFreed skipped: \(reason) (StoreFaultDetectionTests covers SQLITE_FULL in process)")
            return
        }
        let directory = try TemporaryDirectory("paypanel-server")
        let mountPoint = directory.file("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let launcher = ["/usr/bin/unshare", "-m", "/bin/sh", "-c", #"mount -t tmpfs -o size=4m,mode=0700 tmpfs "$0" && exec "$@""#, mountPoint]
        let server = try await ServerProcess.start(directory: directory, database: mountPoint + "/payments.sqlite", launcher: launcher)
        var acknowledged = try await Self.createIntents(server, count: 3)

        // Fill the server's tmpfs (the test cannot see that mount by its own path).
        let filler = "/proc/\(server.pid)/root\(mountPoint)/filler"
        let descriptor = open(filler, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0, "cannot open \(filler): \(String(cString: strerror(errno)))")
        let chunk = [UInt8](repeating: 7, count: 4096)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, chunk.count) }) > 0 {}
        #expect(errno == ENOSPC)
        close(descriptor)

        // The WAL may still have a little room in its last page: the first writes may fit.
        var full: APIResponse?
        for _ in 0..<20 {
            let create = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#)
            if create.status == 200 {
                acknowledged.append(create.id)
                continue
            }
            full = create
            break
        }
        let refused = try #require(full, "no write failed on the full disk")
        Self.expectFault(refused, code: "disk_full", retryAfter: "30")
        let ready = try await server.request("GET", "/readyz", key: "")
        #expect(ready.status == 503)
        #expect(ready.errorCode == "disk_full", "\(ready.text)")
        #expect(server.stderr.contains(#""store_fault":"disk_full""#))

        #expect(unlink(filler) == 0)
        #expect(try await server.request("GET", "/readyz", key: "").status == 200, "ready again once there is room")
        acknowledged.append(try await server.createIntent())
        try await Self.expectAllThere(server, acknowledged)
        #expect(await server.terminate() == 0)
    }
}
