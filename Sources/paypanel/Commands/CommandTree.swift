/// Every command of `paypanel`, as a tree of groups. Add a command here to make it reachable.
enum CommandTree {
    static let root = CommandNode.group(
        name: "paypanel",
        abstract: "Apple Pay payments started from inside a push notification: the panel, the requests, the tokens and the backend.",
        children: [
            .command(CheckoutCommand.self),
            .group(
                name: "payments", abstract: "Create, authorize, capture, void, refund, cancel, resolve and inspect payment intents.",
                children: [
                    .command(PaymentsCreateCommand.self), .command(PaymentsShowCommand.self), .command(PaymentsListCommand.self),
                    .command(PaymentsAuthorizeCommand.self), .command(PaymentsChallengeCommand.self),
                    .command(PaymentsCaptureCommand.self), .command(PaymentsVoidCommand.self), .command(PaymentsRefundCommand.self),
                    .command(PaymentsCancelCommand.self), .command(PaymentsResolveCommand.self),
                ]),
            .command(ReconcileCommand.self),
            .command(ServeCommand.self),
            .group(
                name: "events", abstract: "List and show events: every change a merchant hears about by webhook.",
                children: [.command(EventsListCommand.self), .command(EventsShowCommand.self)]),
            .group(
                name: "webhooks", abstract: "Add, list, remove and rotate webhook endpoints; replay events; receive webhooks locally.",
                children: [
                    .command(WebhooksAddCommand.self), .command(WebhooksListCommand.self), .command(WebhooksRemoveCommand.self),
                    .command(WebhooksRotateSecretCommand.self), .command(WebhooksReplayCommand.self), .command(WebhooksListenCommand.self),
                ]),
            .group(
                name: "keys", abstract: "Create, list and revoke the HTTP API's secret keys.",
                children: [.command(KeysCreateCommand.self), .command(KeysListCommand.self), .command(KeysRevokeCommand.self)]),
            .group(
                name: "request", abstract: "Build and validate Apple Pay payment requests.",
                children: [.command(RequestValidateCommand.self), .command(RequestBuildCommand.self)]),
            .group(
                name: "notify", abstract: "Build, validate, show and mutate payment-action pushes; schedule, deliver and answer notifications.",
                children: [
                    .command(NotifyBuildCommand.self), .command(NotifyValidateCommand.self), .command(NotifyShowCommand.self),
                    .command(NotifyMutateCommand.self), .command(NotifyScheduleCommand.self), .command(NotifyDeliverCommand.self),
                    .command(NotifyRespondCommand.self), .command(NotifyListCommand.self), .command(NotifySendCommand.self),
                ]),
            .group(
                name: "devices", abstract: "Register and list the APNs device tokens checkouts are pushed to.",
                children: [.command(DevicesAddCommand.self), .command(DevicesListCommand.self)]),
            .group(
                name: "token", abstract: "Verify, decrypt and seal Apple Pay payment tokens.",
                children: [.command(TokenVerifyCommand.self), .command(TokenDecryptCommand.self), .command(TokenSealCommand.self)]),
            .group(
                name: "processor", abstract: "The mock payment processor: its ledger, its triggers, and serving it over HTTP.",
                children: [.command(ProcessorLedgerCommand.self), .command(ProcessorTriggersCommand.self), .command(ProcessorServeCommand.self)]),
            .group(
                name: "db", abstract: "Create, migrate and inspect the payments database.",
                children: [.command(DatabaseMigrateCommand.self), .command(DatabaseStatusCommand.self)]),
            .group(
                name: "bench", abstract: "Measure the payment machinery against baselines from the same run (build with -c release first).",
                children: [
                    .command(BenchLifecycleCommand.self), .command(BenchTokenCommand.self), .command(BenchCLICommand.self),
                    .command(BenchProcessorCommand.self), .command(BenchServeCommand.self), .command(BenchProcessorScaleCommand.self),
                ]),
            .group(
                name: "soak", abstract: "Prove it under stress: crash the payment flows, or hammer one database from many processes.",
                children: [
                    .command(SoakCrashCommand.self), .command(SoakProcessorCommand.self), .command(SoakChaosCommand.self),
                    .command(SoakConcurrencyCommand.self), .command(SoakSecurityCommand.self),
                ]),
            .group(
                name: "fuzz", abstract: "Feed mutated requests, pushes and Apple Pay tokens to their readers: no crash, no hang, clean rejections.",
                children: [.command(FuzzRequestCommand.self), .command(FuzzPayloadCommand.self), .command(FuzzTokenCommand.self)]),
        ])
}
