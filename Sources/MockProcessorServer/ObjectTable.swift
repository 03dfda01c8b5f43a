import Foundation

/// Ids in creation order, for Stripe's newest-first cursor paging without a scan: appending,
/// removing and finding an id's place are O(1), and a page costs its own length.
///
/// A removed id leaves an empty slot (so every other id keeps its place) until the empty slots
/// outnumber the ids, when they are squeezed out in one pass. Removals are rare: an intent
/// whose creating request never reached the ledger, a refund the ledger refused.
struct CreationOrder: Sendable {
    private var slots: [String?] = []
    private var slotOf: [String: Int] = [:]
    private var emptySlots = 0

    /// How many ids it holds.
    var count: Int { slotOf.count }

    func contains(_ id: String) -> Bool { slotOf[id] != nil }

    mutating func append(_ id: String) {
        guard slotOf[id] == nil else { return }
        slotOf[id] = slots.count
        slots.append(id)
    }

    mutating func remove(_ id: String) {
        guard let slot = slotOf.removeValue(forKey: id) else { return }
        if slot == slots.count - 1 {
            slots.removeLast()
        } else {
            slots[slot] = nil
            emptySlots += 1
            if emptySlots > 64 && emptySlots > slotOf.count { squeeze() }
        }
    }

    private mutating func squeeze() {
        slots = slots.compactMap { $0 }
        slotOf = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($0.element!, $0.offset) })
        emptySlots = 0
    }

    /// Every id, newest first (lazily: a caller that stops early pays only for what it read).
    var newestFirst: some Sequence<String> {
        slots.reversed().lazy.compactMap { $0 }
    }

    /// One page, newest first, as Stripe lists it: the newest `limit` ids; or those just older
    /// than `after` (`starting_after`); or the `limit` just newer than `before` (`ending_before`).
    /// `hasMore` says whether more follow in the direction of paging. Nil when the cursor id is
    /// not in the order.
    func page(after: String?, before: String?, limit: Int) -> (ids: [String], hasMore: Bool)? {
        if let before {
            guard let slot = slotOf[before] else { return nil }
            // Walk towards the newest, nearest first; the page is shown newest first.
            let (found, hasMore) = collect(from: slot + 1, step: 1, limit: limit)
            return (found.reversed(), hasMore)
        }
        var start = slots.count - 1
        if let after {
            guard let slot = slotOf[after] else { return nil }
            start = slot - 1
        }
        return collect(from: start, step: -1, limit: limit)
    }

    /// Up to `limit` ids from slot `start` on, in the direction of `step`, and whether one more exists.
    private func collect(from start: Int, step: Int, limit: Int) -> ([String], Bool) {
        var found: [String] = []
        var slot = start
        while slot >= 0 && slot < slots.count {
            if let id = slots[slot] {
                if found.count == limit { return (found, true) }
                found.append(id)
            }
            slot += step
        }
        return (found, false)
    }
}

/// An object an account keeps in an `ObjectTable`: the index keys it is found by (an intent by
/// each metadata pair, a refund by its PaymentIntent).
protocol TableObject: Sendable {
    var indexKeys: Set<String> { get }
}

/// One kind of an account's objects (its intents, or its refunds): by id, in creation order,
/// by index key, and which ids changed since the account was last written.
///
/// The change set is what makes a request's write proportional to what it changed: every
/// assignment through the subscript (including `table[id]?.field = …`) records the id, and the
/// account store writes those rows and no others (`Account.pendingChanges`).
struct ObjectTable<Object: TableObject>: Sendable {
    private var objects: [String: Object] = [:]
    /// Creation order of every id.
    private(set) var order = CreationOrder()
    /// Index key → the ids of the objects that have it, in creation order.
    private var index: [String: CreationOrder] = [:]
    /// Ids set or removed since the last write.
    private(set) var changed: Set<String> = []
    /// Each object's place in the order as the account store keeps it (its `position` column):
    /// increasing with creation, never reused, so the order survives a restart.
    private var positions: [String: Int64] = [:]
    private var nextPosition: Int64 = 1

    var count: Int { objects.count }

    /// The stored position of `id` (nil when the table has no such object).
    func position(of id: String) -> Int64? { positions[id] }

    subscript(id: String) -> Object? {
        get { objects[id] }
        set {
            // `table[id]?.field = …` on a missing id assigns nil over nil: nothing changed.
            guard newValue != nil || objects[id] != nil else { return }
            changed.insert(id)
            put(newValue, id: id)
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: String) -> Object? {
        let old = objects[id]
        self[id] = nil
        return old
    }

    /// The ids with index key `key`, in creation order (nil: none).
    func ids(withIndexKey key: String) -> CreationOrder? { index[key] }

    /// Adds an object read from the store, not marked changed. Load in increasing `position`.
    mutating func load(_ object: Object, id: String, position: Int64) {
        put(object, id: id)
        positions[id] = position
        nextPosition = max(nextPosition, position + 1)
    }

    /// Forgets the change set once the account store holds every change.
    mutating func markSaved() { changed.removeAll() }

    /// Marks every object changed (an account imported from an earlier version's snapshot).
    mutating func markAllChanged() { changed = Set(objects.keys) }

    private mutating func put(_ object: Object?, id: String) {
        let old = objects[id]
        let oldKeys = old?.indexKeys ?? []
        let newKeys = object?.indexKeys ?? []
        objects[id] = object
        if object == nil {
            order.remove(id)
            positions[id] = nil
        } else if old == nil {
            order.append(id)
            positions[id] = nextPosition
            nextPosition += 1
        }
        guard oldKeys != newKeys else { return }
        for key in oldKeys.subtracting(newKeys) {
            index[key]?.remove(id)
            if index[key]?.count == 0 { index[key] = nil }
        }
        for key in newKeys.subtracting(oldKeys) { index[key, default: CreationOrder()].append(id) }
    }
}

/// A dictionary that records which keys were set or removed since the last write (an
/// account's idempotency keys and card chains).
struct TrackedMap<Value: Sendable>: Sendable {
    private var values: [String: Value] = [:]
    private(set) var changed: Set<String> = []

    subscript(key: String) -> Value? {
        get { values[key] }
        set {
            // `map[key]?.take()` on a missing key assigns nil over nil: nothing changed.
            guard newValue != nil || values[key] != nil else { return }
            changed.insert(key)
            values[key] = newValue
        }
    }

    mutating func load(_ value: Value, key: String) { values[key] = value }
    mutating func markSaved() { changed.removeAll() }
    mutating func markAllChanged() { changed = Set(values.keys) }
}
