/// Pending deadlines in a binary min-heap. A connection's deadline changes on almost every
/// event, so entries are never removed in place: each carries the connection's timer
/// generation at the time it was scheduled, and an entry whose generation is stale is
/// skipped when it surfaces. `compact` rebuilds the heap when stale entries pile up.
struct DeadlineHeap {
    struct Entry {
        let deadline: ContinuousClock.Instant
        let connectionID: UInt64
        let generation: UInt64
    }

    private var entries: [Entry] = []

    var count: Int { entries.count }

    /// The earliest entry, stale or not.
    var earliest: Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popEarliest() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let earliest = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count && entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count && entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return earliest
    }

    /// Replaces the contents with `live` (the current deadline of every connection).
    mutating func rebuild(from live: [Entry]) {
        entries = []
        entries.reserveCapacity(live.count)
        for entry in live { push(entry) }
    }
}
