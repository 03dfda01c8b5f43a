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

    /// By default glibc gives the free memory at the top of an arena back to the kernel
    /// (`madvise(MADV_DONTNEED)`) once it passes 128 KiB, and the next allocations fault those
    /// pages in again. A payment's transactions free and reallocate about that much each
    /// (SQLite's statement journals and cursors, the rows and JSON around them), so nearly every
    /// commit paid for a trim and the page faults after it: with `perf` over `paypanel bench
    /// lifecycle` on tmpfs, about a third of a payment's CPU time (docs/benchmarks.md). Keeping
    /// up to `bytes` per arena ends that churn; it also fixes glibc's mmap threshold at its
    /// default 128 KiB (glibc stops adjusting both once either is set), so large blocks are
    /// still returned when freed. A process-wide setting, made first thing by the program.
    public static func keepFreedMemory(upTo bytes: Int32 = 512 << 10) {
        _ = mallopt(M_TRIM_THRESHOLD, bytes)
    }
}
