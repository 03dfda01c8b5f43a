import Foundation
import PayPanel

/// The account snapshots of earlier versions: one JSON file per account in `<ledger>.accounts/`,
/// rewritten whole (through a temporary `.acct_….json.<random>.tmp` file and a rename) after
/// every request. At start each one is moved into the account store, once, so a ledger used by
/// an earlier version keeps its accounts.
///
/// Crash-safe in every order: an account is imported in one transaction and its file removed
/// only afterwards; a file whose account the store already holds (a crash between the two) is
/// just removed. Temporary files that an earlier version left when it was killed mid-write are
/// removed: they were never renamed into place, so they hold nothing a client was answered
/// from. A file that cannot be read is left where it is and reported; the directory is
/// removed once it is empty.
enum LegacyAccountSnapshots {
    static func directory(forLedger ledgerPath: String) -> String { ledgerPath + ".accounts" }

    /// Imports every snapshot in the directory beside `ledgerPath` into `store`; returns the
    /// files that could not be read (relative to the ledger's directory, as the warning shows them).
    static func importAll(ledgerPath: String, into store: AccountStore) -> [String] {
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
                let persisted = try? JSONDecoder().decode(PersistedAccount.self, from: data), let account = persisted.account
            else {
                unreadable.append(folder + "/" + name)
                continue
            }
            do {
                if try !store.contains(account.tag) { try store.save(account.pendingChanges()) }
                unlink(path)
            } catch {
                unreadable.append(folder + "/" + name + " (\((error as? any PayPanelError)?.message ?? "\(error)"))")
            }
        }
        rmdir(directory)  // fails, harmlessly, while an unreadable file is left in it
        return unreadable
    }
}
