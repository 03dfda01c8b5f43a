// swift-tools-version:6.1
// PayPanel: the backend behind an Apple Pay panel that lives inside a push notification.
// No outside Swift packages: only the toolchain and two system libraries (SQLite 3, OpenSSL 3),
// plus libpq behind the `PostgreSQL` trait (off by default: `swift build --traits PostgreSQL`).
import PackageDescription

// Linux only: the HTTP server core is built on epoll (CPayPanelHTTP), so no other platform is
// claimed here or in the README.
let package = Package(
    name: "PayPanel",
    products: [
        .executable(name: "paypanel", targets: ["paypanel"]),
        // The product: what a merchant's backend depends on. No demo, test keys or tooling.
        .library(name: "PayPanel", targets: ["PayPanel"]),
        // The PostgreSQL payments store, for a backend that keeps its payments in PostgreSQL
        // (needs the `PostgreSQL` trait; without it the product holds no store and links no libpq).
        .library(name: "PayPanelPostgres", targets: ["PayPanelPostgres"]),
        // The deterministic, stateful mock processor, for other packages' integration tests.
        .library(name: "MockProcessor", targets: ["MockProcessor"]),
    ],
    // `PostgreSQL` adds the PostgreSQL payments store (libpq). Off by default, so `swift build`
    // needs only SQLite and OpenSSL; `--traits default,PostgreSQL` keeps the defaults and adds it.
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL payments store, on libpq (apt: libpq-dev)."),
        .default(enabledTraits: []),
    ],
    targets: [
        // System libraries: a module map that links the library plus a shim header for the
        // macros and variadic functions Swift cannot import directly.
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            path: "Sources/COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // libpq, only with the `PostgreSQL` trait (PayPanelPostgres's dependency is conditional on it).
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),

        // The HTTP/1.1 server core's window on Linux: epoll, eventfd and accept4, which the Glibc
        // module does not export. Headers only; libc itself links them.
        .systemLibrary(name: "CPayPanelHTTP", path: "Sources/CPayPanelHTTP"),
        // A small HTTP/1.1 server core on POSIX sockets (parser, limits, event loop, router).
        // Standalone on purpose: the payments API and the mock processor's server both reuse it.
        .target(name: "PayPanelHTTP", dependencies: ["CPayPanelHTTP"], path: "Sources/PayPanelHTTP"),

        // Embeds Migrations/**/*.sql into the library at build time, so the binary carries its
        // schema wherever it is copied (a runtime file lookup would break that).
        .executableTarget(name: "embed-migrations", path: "Sources/embed-migrations"),
        .plugin(
            name: "EmbedMigrationsPlugin",
            capability: .buildTool(),
            dependencies: ["embed-migrations"],
            path: "Sources/EmbedMigrationsPlugin"
        ),

        // Embeds Sources/PayPanelServer/Web/* (the demo page) into the server at build time.
        .executableTarget(name: "embed-web-assets", path: "Sources/embed-web-assets"),
        .plugin(
            name: "EmbedWebAssetsPlugin",
            capability: .buildTool(),
            dependencies: ["embed-web-assets"],
            path: "Sources/EmbedWebAssetsPlugin"
        ),

        // All the logic, in feature folders, with the SQLite store. Never prints. Links no libpq:
        // the PostgreSQL store is its own target (PayPanelPostgres).
        .target(
            name: "PayPanel",
            dependencies: ["CSQLite", "COpenSSL", "PayPanelHTTP"],
            path: "Sources/PayPanel",
            plugins: ["EmbedMigrationsPlugin"]
        ),
        // The PostgreSQL payments store on libpq (its schema: Migrations/postgresql/, embedded
        // into this target alone). Every source file is `#if PostgreSQL`: without the trait this
        // target compiles no PostgreSQL code and links no libpq.
        .target(
            name: "PayPanelPostgres",
            dependencies: ["PayPanel", "PayPanelHTTP", .target(name: "CLibPQ", condition: .when(traits: ["PostgreSQL"]))],
            path: "Sources/PayPanelPostgres",
            plugins: ["EmbedMigrationsPlugin"]
        ),
        // The deterministic, stateful mock payment processor with its own SQLite ledger
        // (its schema: Migrations/processor/, embedded into this target alone).
        .target(
            name: "MockProcessor",
            dependencies: ["PayPanel", "PayPanelHTTP"],
            path: "Sources/MockProcessor",
            plugins: ["EmbedMigrationsPlugin"]
        ),
        // The device side, for the demo and tests only: the checkout screens, the test wallet,
        // the token sealer and the test identity (whose private keys are public on purpose).
        .target(
            name: "PayPanelDemo",
            dependencies: ["PayPanel", "PayPanelHTTP"],
            path: "Sources/PayPanelDemo"
        ),
        // Tooling beside the product: fuzzing, soaks, the security run, benchmarks.
        .target(
            name: "PayPanelReliability",
            dependencies: ["PayPanel", "PayPanelDemo", "MockProcessor", "MockProcessorServer", "PayPanelHTTP", "CPayPanelHTTP"],
            path: "Sources/PayPanelReliability"
        ),
        // The HTTP API (/v1/payment_intents, /v1/refunds, health, OpenAPI) as thin translation
        // over PaymentService, with API keys, idempotency keys and the reconciliation worker.
        // Web/: the test-mode demo page (GET /demo), embedded by EmbedWebAssetsPlugin.
        .target(
            name: "PayPanelServer", dependencies: ["PayPanel", "PayPanelHTTP"], path: "Sources/PayPanelServer",
            exclude: ["Web"], plugins: ["EmbedWebAssetsPlugin"]),
        // The mock processor over HTTP: a Stripe-compatible subset with test endpoints
        // (`paypanel processor serve`, docs/mock-processor.md).
        .target(name: "MockProcessorServer", dependencies: ["MockProcessor", "PayPanel", "PayPanelHTTP"], path: "Sources/MockProcessorServer"),
        // The command-line program: argument parsing and terminal drawing only.
        .executableTarget(
            name: "paypanel",
            dependencies: [
                "PayPanel", "PayPanelPostgres", "MockProcessor", "PayPanelDemo", "PayPanelReliability", "PayPanelServer", "PayPanelHTTP",
                "MockProcessorServer",
            ],
            path: "Sources/paypanel"
        ),

        // Shared by the test targets: temporary directories, fixture paths, running the binary,
        // comparing the payments database with the mock processor's ledger.
        .target(
            name: "TestSupport", dependencies: ["PayPanel", "MockProcessor", "PayPanelDemo", "PayPanelReliability", "PayPanelHTTP"],
            path: "Tests/TestSupport"),
        .testTarget(
            name: "PayPanelTests",
            // MockProcessor: the payment service's integration tests run against it.
            dependencies: [
                "PayPanel", "PayPanelPostgres", "MockProcessor", "PayPanelDemo", "PayPanelReliability", "PayPanelHTTP", "TestSupport",
            ],
            path: "Tests/PayPanelTests"
        ),
        .testTarget(
            name: "MockProcessorTests",
            dependencies: ["MockProcessor", "PayPanel", "PayPanelDemo", "TestSupport"],
            path: "Tests/MockProcessorTests"
        ),
        // Parser tests on split byte sequences, and socket tests against a real started server.
        .testTarget(name: "PayPanelHTTPTests", dependencies: ["PayPanelHTTP", "TestSupport"], path: "Tests/PayPanelHTTPTests"),
        // Starts the real `paypanel serve` on port 0 and drives it over sockets.
        .testTarget(
            name: "PayPanelServerTests",
            dependencies: [
                "paypanel", "PayPanelServer", "PayPanel", "PayPanelPostgres", "PayPanelHTTP", "PayPanelDemo", "PayPanelReliability",
                "TestSupport",
            ],
            path: "Tests/PayPanelServerTests"
        ),
        // Starts the real `paypanel processor serve` on port 0 and drives it over sockets, and the
        // library's HTTP processor against it.
        .testTarget(
            name: "MockProcessorServerTests",
            dependencies: ["paypanel", "MockProcessorServer", "PayPanel", "PayPanelReliability", "TestSupport"],
            path: "Tests/MockProcessorServerTests"
        ),
        // Runs the built `paypanel` binary and compares stdout, stderr and exit code.
        .testTarget(
            name: "paypanelCLITests",
            // MockProcessor and PayPanel: tests prepare ledgers and databases for the binary to read.
            dependencies: ["paypanel", "MockProcessor", "PayPanel", "TestSupport"],
            path: "Tests/paypanelCLITests"
        ),
    ]
)
