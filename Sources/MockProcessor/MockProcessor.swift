import PayPanel

/// The deterministic, stateful mock payment processor (DESIGN §5). It keeps its own SQLite
/// ledger (`MigrationSet.processor`) so its state survives a crash of the checkout process.
/// The processor issue fills this in; for now it only names its schema.
public enum MockProcessorLedger {
    /// The migrations of the processor's own database file.
    public static var migrations: MigrationSet { .processor }
}
