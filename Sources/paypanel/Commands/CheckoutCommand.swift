/// `paypanel checkout`: the interactive checkout. Until the terminal flow lands it says so and
/// shows what can already be run, instead of pretending.
struct CheckoutCommand: CLICommand {
    static let spec = CommandSpec(
        name: "checkout",
        abstract: "Run the interactive checkout: the notification panel, the Apple Pay sheet and the backend.")

    init(arguments: ParsedArguments) throws {}

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        console.print("The interactive checkout is not built yet. What works today:")
        console.print("  paypanel request build --amount 10        the Apple Pay request for the 10.00 USD segment")
        console.print("  paypanel request validate FILE            check a payment request as strictly as Apple does")
        console.print("  paypanel --help                           every command")
        return .success
    }
}
