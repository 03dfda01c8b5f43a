import CPayPanelHTTP

/// Memory settings for a long-running server process.
public enum ServerMemory {
    /// glibc gives each thread that allocates an arena of its own, up to eight per core, and
    /// keeps what each grew. A server's handler threads, event loop and worker each took one:
    /// about 20 MiB more resident after load than with two arenas, for no measurable loss of
    /// speed (docs/benchmarks.md, "The HTTP server"). Call it first thing, before those threads
    /// start. A process-wide setting, so the program calls it, never a library on its own.
    public static func limitMallocArenas(to count: Int32 = 2) {
        _ = mallopt(M_ARENA_MAX, count)
    }
}
