import PayPanel

extension MigrationSet {
    /// The mock processor ledger's migrations ('PAY3'): `Migrations/processor/`, embedded into
    /// this target only, so the product library carries no schema of the mock's. The ledger
    /// holds `processor serve`'s accounts too (0004).
    public static let processor = embedded(
        EmbeddedMigrationFiles.all, folder: "processor", name: "processor", applicationID: 0x5041_5933)
}
