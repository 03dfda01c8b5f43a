/// Every command of `paypanel`, as a tree of groups. Add a command here to make it reachable.
enum CommandTree {
    static let root = CommandNode.group(
        name: "paypanel",
        abstract: "Apple Pay payments started from inside a push notification: the panel, the requests, the tokens and the backend.",
        children: [
            .command(CheckoutCommand.self),
            .group(
                name: "request", abstract: "Build and validate Apple Pay payment requests.",
                children: [.command(RequestValidateCommand.self), .command(RequestBuildCommand.self)]),
            .group(
                name: "token", abstract: "Verify, decrypt and seal Apple Pay payment tokens.",
                children: [.command(TokenVerifyCommand.self), .command(TokenDecryptCommand.self), .command(TokenSealCommand.self)]),
            .group(name: "bench", abstract: "Measure performance (build with -c release first).", children: [.command(BenchTokenCommand.self)]),
        ])
}
