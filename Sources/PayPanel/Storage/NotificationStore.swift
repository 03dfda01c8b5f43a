import Foundation

/// The storage boundary of scheduled notifications: `NotificationScheduler` keeps the rules
/// (what may be scheduled, what an action does, what show-me reveals) and reads and writes
/// rows only through one of these.
///
/// A *transaction scope*, like `PaymentStore`: `try store.write { tx in … }` commits together
/// or not at all. Adopters: `SQLiteNotificationStore` (the payments database, migration 0003)
/// and the PostgreSQL store. Rules every adopter keeps:
/// - `write` is serializable for the rows it claims: two `notify deliver` processes on one
///   store deliver each notification once (SQLite: `BEGIN IMMEDIATE`; PostgreSQL:
///   `SELECT … FOR UPDATE SKIP LOCKED` or a serializable transaction).
/// - Ids and delivery sequences are 64-bit integers; times are stored as epoch milliseconds.
/// - Delivery sequences are 1, 2, 3… in delivery order across every writer of the store.
package protocol NotificationStore: AnyObject {
    /// Runs `body` in one write transaction; commits when it returns, rolls back when it
    /// throws. A write inside another write of the same store joins it.
    func write<T>(_ body: (any NotificationStoreTransaction) throws -> T) throws -> T

    /// Runs `body` on one consistent snapshot; `body` must not write.
    func read<T>(_ body: (any NotificationStoreTransaction) throws -> T) throws -> T
}

/// What can be done inside one transaction of a `NotificationStore`. Only valid inside the
/// `write`/`read` call that handed it out.
package protocol NotificationStoreTransaction {
    /// Stores `request` (pending, created at `createdAt`, revealing `reveals` when given) and
    /// returns its new id.
    func insertNotification(_ request: NotificationRequest, reveals: Int64?, createdAt: Date) throws -> Int64
    /// The notification `id`, or nil.
    func notification(id: Int64) throws -> ScheduledNotification?
    /// Ids of pending notifications due at `now` (deliver-at ≤ now), by deliver-at then id, at
    /// most `limit` (all when nil).
    func dueNotificationIDs(at now: Date, limit: Int?) throws -> [Int64]
    /// Marks pending notification `id` delivered at `at` with delivery sequence `sequence`;
    /// false when it was no longer pending.
    func markDelivered(id: Int64, at: Date, sequence: Int64) throws -> Bool
    /// The highest delivery sequence so far, 0 when nothing was delivered.
    func latestDeliverySequence() throws -> Int64
    /// Notifications delivered after `sequence` whose thread id is `threadID` or whose order
    /// reference is `orderReference` (a nil one matches nothing), by delivery sequence.
    func notificationsDelivered(after sequence: Int64, threadID: String?, orderReference: String?) throws -> [ScheduledNotification]
    /// Records the answer `action` to notification `id` at `at`; false when it was already
    /// answered.
    func markResponded(id: Int64, action: String, at: Date) throws -> Bool
    /// Every notification, or only those in `state`, by id.
    func notifications(in state: ScheduledNotification.State?) throws -> [ScheduledNotification]
    /// The pending notification due soonest (by deliver-at, then id), or nil.
    func nextPendingNotification() throws -> ScheduledNotification?
}
