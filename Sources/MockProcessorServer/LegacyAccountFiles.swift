import Foundation
import PayPanel

/// Where earlier versions kept the accounts, beside the ledger, and how they are moved into it
/// (the one store, `AccountStore`) at start, once, so a ledger used by an earlier version keeps
/// its accounts:
/// - `<ledger>.accounts.sqlite`: the same tables in a second SQLite file ('PAY4');
/// - `<ledger>.accounts/acct_….json`: one JSON snapshot per account, rewritten whole (through a
///   temporary `.acct_….json.<random>.tmp` file and a rename) after every request.
///
/// Crash-safe in every order: an account is imported in one transaction and its file removed
/// only afterwards; an account the store already holds (a crash between the two) is skipped
/// and its file just removed. A file that cannot be read is left where it is and reported.
enum LegacyAccountFiles {
    /// Moves both kinds of file beside `ledgerPath` into `store`; returns what could not be
    /// read (relative to the ledger's directory, as the warning shows them).
    static func importAll(ledgerPath: String, into store: AccountStore) -> [String] {
        importStoreFile(ledgerPath: ledgerPath, into: store) + importSnapshots(ledgerPath: ledgerPath, into: store)
    }

    // MARK: - The second SQLite file

    static func storeFile(forLedger ledgerPath: String) -> String { ledgerPath + ".accounts.sqlite" }

    /// 'PAY4', stamped by that file's first migration.
    static let storeFileApplicationID: Int64 = 0x5041_5934

    /// Copies every account of `<ledger>.accounts.sqlite` that the ledger does not hold yet
    /// (one transaction each), then removes the file with its `-wal` and `-shm`.
    static func importStoreFile(ledgerPath: String, into store: AccountStore) -> [String] {
        let path = storeFile(forLedger: ledgerPath)
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let name = (path as NSString).lastPathComponent
        do {
            // Scoped so the file is closed before it is removed.
            try {
                // No switch to WAL on open: a file that turns out not to be ours is left as it was.
                let file = try Database(path: path, options: Database.Options(create: false, writeAheadLog: false))
                let applicationID = try file.queryFirst("PRAGMA application_id") { $0.int64(0) } ?? 0
                guard applicationID == storeFileApplicationID else {
                    throw AccountStoreError(path: path, reason: "not an account store of processor serve")
                }
                let accounts = try file.queryAll("SELECT tag, clock_offset FROM accounts ORDER BY tag") { ($0.string(0), $0.double(1)) }
                for (tag, clockOffset) in accounts {
                    guard try !store.contains(tag) else { continue }
                    let rows = try file.queryAll("SELECT kind, id, position, body FROM account_objects WHERE account = ?", [tag]) {
                        AccountChanges.Row(kind: $0.string(0), id: $0.string(1), position: $0.int64(2), body: $0.string(3))
                    }
                    try store.save(AccountChanges(tag: tag, clockOffset: clockOffset, rows: rows)).waitBlocking()
                }
            }()
        } catch {
            return [name + " (\((error as? any PayPanelError)?.message ?? "\(error)"))"]
        }
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        return []
    }

    // MARK: - JSON snapshots

    static func directory(forLedger ledgerPath: String) -> String { ledgerPath + ".accounts" }

    /// Imports every snapshot in the directory beside `ledgerPath` into `store`; returns the
    /// files that could not be read. Temporary files that an earlier version left when it was
    /// killed mid-write are removed: they were never renamed into place, so they hold nothing a
    /// client was answered from. The directory is removed once it is empty.
    static func importSnapshots(ledgerPath: String, into store: AccountStore) -> [String] {
        let directory = directory(forLedger: ledgerPath)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var unreadable: [String] = []
        let folder = (directory as NSString).lastPathComponent
        for name in names.sorted() {
            let path = directory + "/" + name
            if name.hasSuffix(".tmp") {
                unlink(path)
                continue
            }
            guard name.hasPrefix("acct_"), name.hasSuffix(".json") else { continue }
            guard let data = FileManager.default.contents(atPath: path),
                let persisted = try? JSONParser().parse(data).decoded(as: PersistedAccount.self), let account = persisted.account
            else {
                unreadable.append(folder + "/" + name)
                continue
            }
            do {
                // On disk before the old file goes.
                if try !store.contains(account.tag) { try store.save(account.pendingChanges()).waitBlocking() }
                unlink(path)
            } catch {
                unreadable.append(folder + "/" + name + " (\((error as? any PayPanelError)?.message ?? "\(error)"))")
            }
        }
        rmdir(directory)  // fails, harmlessly, while an unreadable file is left in it
        return unreadable
    }
}
