import PayPanel

extension MigrationSet {
    /// The mock processor ledger's migrations ('PAY3'): `Migrations/processor/`, embedded into
    /// this target only, so the product library carries no schema of the mock's.
    public static let processor = embedded(
        EmbeddedMigrationFiles.all, folder: "processor", name: "processor", applicationID: 0x5041_5933)

    /// The account store of `processor serve` ('PAY4'): `Migrations/processor/accounts/`, a file
    /// of its own beside the ledger (`<ledger>.accounts.sqlite`). Embedded here with the
    /// ledger's (the plugin gives this target everything under `Migrations/processor/`); the
    /// ledger's set takes only the files directly in its folder.
    public static let processorAccounts = embedded(
        EmbeddedMigrationFiles.all, folder: "processor/accounts", name: "processor accounts", applicationID: 0x5041_5934)
}
