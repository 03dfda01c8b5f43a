import Foundation
import Testing

/// OpenSSL's cleanup at exit frees its global state under threads that may still use it
/// (`OpenSSLProcess`): the CLI crashed so in the AddressSanitizer pass. The race cannot be
/// provoked on demand, so this checks what prevents it, for every program of ours and every one
/// added later: each `main.swift` of a target that can reach OpenSSL (it imports one of our
/// libraries) turns the cleanup off as its first statement, before anything else can make
/// OpenSSL's first initialization, which is the one that decides.
@Suite struct OpenSSLAtExitTests {
    /// Our library modules: each links OpenSSL through `PayPanel`.
    static var libraries: Regex<(Substring, Substring)> { /^import\s+(PayPanel\w*|MockProcessor\w*)\b/ }

    @Test func everyProgramThatCanReachOpenSSLTurnsItsExitCleanupOffFirst() throws {
        let sources = try BlockingWaitTests.sources(under: "Sources")
        let mains = sources.filter { $0.file.hasSuffix("/main.swift") }
        #expect(mains.contains { $0.file == "paypanel/main.swift" }, "the reading found the CLI's main.swift")
        var checked: [String] = []
        var offending: [String] = []
        for main in mains {
            let target = main.file.split(separator: "/").first.map(String.init) ?? ""
            let targetFiles = sources.filter { $0.file.hasPrefix(target + "/") }
            let reachesOpenSSL = targetFiles.contains { file in
                file.text.split(separator: "\n").contains { $0.contains(Self.libraries) }
            }
            guard reachesOpenSSL else { continue }
            checked.append(main.file)
            let first = Self.firstStatement(main.text)
            if first != "OpenSSLProcess.skipCleanupAtExit()" {
                offending.append("Sources/\(main.file): first statement is \(first ?? "nothing")")
            }
        }
        #expect(checked.contains("paypanel/main.swift"), "the CLI reaches OpenSSL and was checked")
        #expect(
            offending.isEmpty,
            """
            a program that can reach OpenSSL must call OpenSSLProcess.skipCleanupAtExit() first in its main.swift, \
            or OpenSSL's atexit cleanup may free its state under a thread still using it:
            \(offending.joined(separator: "\n"))
            """)
    }

    /// The check on what it guards against: a main whose first statement is anything else.
    @Test func theCheckReadsTheFirstStatementPastImportsAndComments() {
        let first = Self.firstStatement
        #expect(first("import PayPanel\n// why\n\nOpenSSLProcess.skipCleanupAtExit()\nsignal(SIGPIPE, SIG_IGN)") == "OpenSSLProcess.skipCleanupAtExit()")
        #expect(first("import PayPanel\nsignal(SIGPIPE, SIG_IGN)\nOpenSSLProcess.skipCleanupAtExit()") == "signal(SIGPIPE, SIG_IGN)")
    }

    /// The first line of code in `text` that is not an import (comments and strings blanked).
    static func firstStatement(_ text: String) -> String? {
        SleepingTestTests.codeOnly(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("import ") }
    }
}
