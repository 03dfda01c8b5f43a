import Foundation
import PayPanel
import PayPanelHTTP

// paypanel: thin front end over the PayPanel library. Parses arguments, draws the terminal,
// and exits with 0 (success), 1 (failure or rejection) or 64 (bad usage).

// First, before anything touches OpenSSL: no cleanup of its global state at exit, while other
// threads may still use it (`OpenSSLProcess`).
OpenSSLProcess.skipCleanupAtExit()

// A closed pipe (`paypanel payments list | head`) must end the output quietly, not kill the
// process with SIGPIPE: writes then fail with EPIPE, which Console handles.
signal(SIGPIPE, SIG_IGN)
ServerMemory.keepFreedMemory()

let console = Console(environment: ProcessInfo.processInfo.environment)
let status = await CommandRunner(root: CommandTree.root, programName: "paypanel")
    .run(Array(CommandLine.arguments.dropFirst()), console: console)
console.flush()
exit(status.code)
