import Foundation
import MockProcessor
import PayPanel
import PayPanelHTTP
import Testing
import TestSupport

/// No call that blocks its thread — a SQLite statement or commit flush, a busy back-off, a
/// PostgreSQL round trip — runs on Swift concurrency's cooperative pool, which has one thread per
/// core and is shared by every task of the process. Such calls run on threads of our own: each
/// actor that owns a store has an `ActorThread`, the HTTP server's handlers have theirs.
///
/// Two source checks find every place that could break the rule (each actor that holds a store,
/// each blocking primitive in the server-side targets); the run checks that 64 payments made at
/// once really keep off the pool.
@Suite struct BlockingWaitTests {
    /// The targets whose code runs inside `serve` and `processor serve`. (The CLI's commands and
    /// the benchmark and soak clients run on threads of their own or block on purpose.)
    static let serverTargets = ["PayPanel", "PayPanelPostgres", "PayPanelServer", "PayPanelHTTP", "MockProcessor", "MockProcessorServer"]

    @Test func sixtyFourConcurrentPaymentsNeverBlockASharedThread() async throws {
        let harness = try CheckoutHarness()
        let auditor = BlockingWaitAuditor()
        try await BlockingWait.$auditor.withValue(auditor) {
            try await withThrowingTaskGroup(of: PaymentStatus.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        let intent = try await harness.createIntent(1000, capture: .manual)
                        return try await harness.service.authorize(try CheckoutHarness.card(intent.id)).intent.status
                    }
                }
                for try await status in group {
                    #expect(status == .requiresCapture)
                }
            }
        }
        // The auditor saw the stores' work (so a store that stopped announcing would show here as
        // a count of zero), and all of it on threads of our own.
        #expect(auditor.onOwnThreads >= 64 * 4, "the payments' statements were announced (\(auditor.onOwnThreads))")
        let onSharedThreads = Dictionary(grouping: auditor.onSharedThreads) { $0 }.mapValues(\.count)
        #expect(onSharedThreads.isEmpty, "blocking calls on a shared thread, by kind")
    }

    /// The service's thread is shared by every payment it serves (and by the checkout desk):
    /// a wait for a flush that held it while other payments' jobs queued behind stopped them
    /// all for the flush. 64 checkouts created and paid at once through the desk, under an
    /// auditor: every such wait suspends (or runs in place with nothing queued), none holds the
    /// thread. With the desk calling its store directly it counted them by the dozen.
    @Test func sixtyFourCheckoutPaysAtOnceNeverHoldTheServicesThreadForAFlush() async throws {
        let harness = try CheckoutDeskHarness()
        let auditor = BlockingWaitAuditor()
        try await BlockingWait.$auditor.withValue(auditor) {
            try await withThrowingTaskGroup(of: SheetAnswer.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        let checkout = try await harness.create().checkout
                        return try await harness.desk.pay(checkout.id, amount: 500, method: try CheckoutDeskHarness.card()).sheet
                    }
                }
                for try await answer in group {
                    #expect(answer == .success)
                }
            }
        }
        #expect(auditor.onOwnThreads >= 64 * 4, "the payments' statements were announced (\(auditor.onOwnThreads))")
        let held = Dictionary(grouping: auditor.heldThreads) { $0 }.mapValues(\.count)
        #expect(held.isEmpty, "waits that held an actor's thread while other jobs queued, by kind: \(held)")
    }

    @Test func aStoreCalledFromATaskOnThePoolIsSeen() async throws {
        // The other side of the check above: the same store, called straight from this test's
        // task (which runs on the cooperative pool), is reported.
        let directory = try TemporaryDirectory("paypanel-blocking-wait")
        let store = try SQLitePaymentStore(path: directory.file("payments.sqlite"), clock: ManualClock(Date(timeIntervalSince1970: 1_795_939_200)))
        let auditor = BlockingWaitAuditor()
        try await BlockingWait.$auditor.withValue(auditor) {
            await Task.yield()
            _ = try store.read { try $0.eventCount() }
        }
        #expect(auditor.onSharedThreads.contains("SQLite statement"))
    }

    /// Every actor in the server-side targets (and the CLI's `serve`) that holds a store, a
    /// database or a processor ledger runs on an `ActorThread`: found by reading the sources, so
    /// a new actor that owns a store fails here until it gets its thread. A store held through
    /// a value of a type of ours counts too (a connection kept in a struct): the types that hold
    /// one, directly or through another, are found first. An actor that runs on another actor's
    /// thread (the checkout desk on the payment service's, `ProcessorService` on the mock
    /// processor's) must hold no store: it uses its host's, one connection per thread.
    @Test func everyActorThatOwnsAStoreHasAThreadOfItsOwn() throws {
        let sharesExecutor = /nonisolated var unownedExecutor: UnownedSerialExecutor \{ \w+\.unownedExecutor \}/
        var declarations: [(target: String, file: String, kind: String, name: String, body: String)] = []
        for target in Self.serverTargets + ["paypanel"] {
            for (file, text) in try Self.sources(under: "Sources/\(target)") {
                declarations += Self.typeBodies(in: text).map { (target, file, $0.kind, $0.name, $0.body) }
            }
        }
        // Through values, not through other actors: an actor's store is used on its own thread
        // only (the desk holds its service, whose store it reaches by a call on the service).
        // A type of ours is a store by what it holds, not by its name: `AccountStore` holds the
        // mock processor and uses its connection on its thread, no connection of its own.
        let ours = Set(declarations.map(\.name))
        let holders = Self.storeHoldingTypes(declarations.filter { $0.kind != "actor" }.map { ($0.name, $0.body) }, ours: ours)
        #expect(holders.contains("SQLitePaymentStore") && holders.contains("ProcessorLedger"), "the stores are found by what they hold: \(holders.sorted())")
        #expect(!holders.contains("AccountStore"), "a store that holds no connection of its own is none: \(holders.sorted())")
        var actors: [String: Bool] = [:]
        var guests: [String] = []
        for declaration in declarations where declaration.kind == "actor" {
            let ownsStore = declaration.body.split(separator: "\n").dropFirst().contains { line in
                Self.storedPropertyType(of: line).map { Self.isStore($0, ours: ours) || holders.contains($0) } ?? false
            }
            let name = "\(declaration.target)/\(declaration.file): \(declaration.name)"
            if declaration.body.contains(sharesExecutor) { guests.append(name) }
            guard ownsStore else { continue }
            // Its own thread. Not another actor's executor: there the store would be a second
            // connection taking turns with its host's on one thread, and each one's commits
            // would throw the other's page cache away (the checkout desk runs on its service's
            // thread and uses its service's store).
            actors[name] = declaration.body.contains("ActorThread(") && declaration.body.contains("unownedExecutor")
        }
        #expect(actors.count >= 8, "the reading found the actors that own stores: \(actors.keys.sorted())")
        #expect(actors.keys.contains { $0.hasSuffix(": MockProcessor") }, "\(actors.keys.sorted())")
        #expect(
            guests.contains { $0.hasSuffix(": CheckoutDesk") } && guests.contains { $0.hasSuffix(": ProcessorService") },
            "the reading found the actors on another's executor: \(guests)")
        let without = actors.filter { !$0.value }.keys.sorted()
        #expect(
            without.isEmpty,
            "actors holding a store on the shared pool or on another actor's thread (give each an ActorThread, or use the host's store):\n\(without.joined(separator: "\n"))")
    }

    /// The type of the stored property a line declares (`let store: any PaymentStore` →
    /// `PaymentStore`), or nil when the line declares none (a computed property has a brace).
    static func storedPropertyType(of line: Substring) -> String? {
        let property = /^\s+(?:(?:private|private\(set\)|package|public|internal|nonisolated|fileprivate)\s+)*(?:let|var)\s+\w+\s*:\s*(?:any\s+)?(\w+)\??\s*(?:=.*)?$/
        // Swift's Regex is slow: most lines are no declaration at all, and are passed over first.
        guard line.contains(":"), line.contains("let ") || line.contains("var "), let match = line.firstMatch(of: property) else { return nil }
        return String(match.1)
    }

    /// A connection itself (`Database`), or a store protocol (`…Store`, `…StoreFactory`: a
    /// protocol has no body to read, and its adopters hold connections). A type of `ours` (a
    /// class, struct, actor or enum declared in the sources) is a store only by what it holds
    /// (`storeHoldingTypes`), whatever its name.
    static func isStore(_ name: String, ours: Set<String>) -> Bool {
        if name == "Database" { return true }
        return !ours.contains(name) && (name.hasSuffix("Store") || name.hasSuffix("StoreFactory") || name.hasSuffix("Database"))
    }

    /// Every type of ours with a stored property of a store type, or of a type in the set, to
    /// a fixed point.
    static func storeHoldingTypes(_ types: [(name: String, body: String)], ours: Set<String>) -> Set<String> {
        var holders = Set<String>()
        var grew = true
        while grew {
            grew = false
            for type in types where !holders.contains(type.name) {
                let holds = type.body.split(separator: "\n").dropFirst().contains { line in
                    Self.storedPropertyType(of: line).map { isStore($0, ours: ours) || holders.contains($0) } ?? false
                }
                if holds {
                    holders.insert(type.name)
                    grew = true
                }
            }
        }
        return holders
    }

    /// Every `async` function of the storage layer stays on its caller's executor
    /// (`nonisolated(nonsending)`, or an `isolated` parameter). A plain nonisolated `async`
    /// function runs on whatever executor the task prefers, so the store's owner would hand its
    /// connection, or its flush wait, to another thread: `WALSync.durable` did, and `serve`
    /// started a flusher thread for every commit. Found by reading the sources.
    @Test func everyAsyncFunctionOfTheStoresStaysOnItsCallersExecutor() throws {
        var checked = 0
        var leaving: [String] = []
        for folder in ["Sources/PayPanel/Storage", "Sources/PayPanelPostgres"] {
            for (file, text) in try Self.sources(under: folder) {
                var rest = Substring(text)
                while let found = rest.range(of: "func ") {
                    let lineStart = rest[..<found.lowerBound].lastIndex(of: "\n").map { rest.index(after: $0) } ?? rest.startIndex
                    // The declaration: to its body's brace, or to the blank line or doc comment after a requirement.
                    let tail = rest[found.lowerBound...]
                    let ends = [tail.firstIndex(of: "{"), tail.range(of: "\n\n")?.lowerBound, tail.range(of: "///")?.lowerBound].compactMap { $0 }
                    let end = ends.min() ?? tail.endIndex
                    let declaration = rest[lineStart..<end]
                    rest = rest[end...]
                    // `async` after the parameter list, not inside it (a closure parameter's type).
                    guard let effects = Self.afterParameters(tail[..<end]), effects.contains("async") else { continue }
                    checked += 1
                    if !declaration.contains("nonisolated(nonsending)") && !declaration.contains("isolated (") {
                        leaving.append("\(folder)/\(file): \(declaration.trimmingCharacters(in: .whitespacesAndNewlines).prefix(120))")
                    }
                }
            }
        }
        #expect(checked >= 5, "the reading found the stores' async functions (\(checked))")
        #expect(leaving.isEmpty, "async store functions that leave their caller's executor (mark them nonisolated(nonsending)):\n\(leaving.joined(separator: "\n"))")
    }

    /// Every `Thread.sleep`, `usleep`, condition or semaphore wait in the server-side targets is
    /// announced (`BlockingWait.announce`) in the function that makes it, or is the idle wait of
    /// a thread type of our own.
    @Test func everyBlockingWaitInTheServerTargetsIsAnnounced() throws {
        let blocking = /Thread\.sleep|\busleep\(|\bcondition\.wait\(|\bdone\.wait\(|semaphore\.wait\(|\.wait\(timeout:/
        // The threads' own idle loops: they wait for work on a thread that is theirs.
        let threadTypes: Set = ["PayPanelHTTP/Threads/ActorThread.swift", "PayPanelHTTP/Server/HandlerExecutor.swift"]
        var found = 0
        var unannounced: [String] = []
        for target in Self.serverTargets {
            for (file, text) in try Self.sources(under: "Sources/\(target)") {
                let path = "\(target)/\(file)"
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() where line.contains(blocking) && !line.contains("await ") {
                    found += 1
                    guard !threadTypes.contains(path) else { continue }
                    // Up to the enclosing function's declaration.
                    var announced = false
                    for earlier in lines[..<index].reversed() {
                        if earlier.contains("BlockingWait.announce(") { announced = true; break }
                        if earlier.contains(/\bfunc\s|\binit\(/) { break }
                    }
                    if !announced { unannounced.append("Sources/\(path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))") }
                }
            }
        }
        #expect(found >= 8, "the reading found the blocking waits (\(found))")
        #expect(unannounced.isEmpty, "blocking waits not announced with BlockingWait.announce:\n\(unannounced.joined(separator: "\n"))")
    }

    // MARK: - Reading the sources

    /// Each Swift file under `folder` with its text, from the walk the comment lints use.
    /// What follows a declaration's parameter list (`async throws -> T`), found by matching
    /// parentheses from the first one after the name; nil when it has none.
    static func afterParameters(_ declaration: Substring) -> Substring? {
        guard let open = declaration.firstIndex(of: "(") else { return nil }
        var depth = 0
        var index = open
        while index < declaration.endIndex {
            switch declaration[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return declaration[declaration.index(after: index)...] }
            default: break
            }
            index = declaration.index(after: index)
        }
        return nil
    }

    static func sources(under folder: String) throws -> [(file: String, text: String)] {
        Dictionary(grouping: try SourceCommentTests.lines(under: folder), by: \.file)
            .map { file, lines in (file, lines.sorted { $0.number < $1.number }.map(\.line).joined(separator: "\n")) }
            .sorted { $0.file < $1.file }
    }

    /// Each top-level `actor`, `struct`, `class` or `enum` declaration's kind, name and body (to
    /// the closing brace at column 0).
    static func typeBodies(in text: String) -> [(kind: String, name: String, body: String)] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var found: [(String, String, String)] = []
        var index = 0
        while index < lines.count {
            // A top-level declaration starts at column 0 with a letter: the rest are passed over
            // before the (slow) regex.
            if lines[index].first?.isLetter == true,
                let match = lines[index].firstMatch(of: /^(?:(?:public|package|internal|final|private|fileprivate)\s+)*(actor|struct|class|enum)\s+(\w+)/) {
                let end = lines[(index + 1)...].firstIndex { $0.hasPrefix("}") } ?? lines.count - 1
                found.append((String(match.1), String(match.2), lines[index...end].joined(separator: "\n")))
                index = end
            }
            index += 1
        }
        return found
    }
}
