import ArgumentParser
import AssistApp
import AssistCore
import CPluginBridge
import CProcessMemory
import Foundation
import Interaction

// Parses the command line and runs it. Every mistake prints one line saying what is wrong and what to
// do, and exits non-zero; exit codes are listed in `Assist.discussion`.
// Everything the host and its plugins create is theirs alone unless they say otherwise: recordings, answers,
// databases and the speech log must never be readable by other users (doctor warns about them).
umask(0o077)
// Two malloc arenas a core, before any thread starts (CProcessMemory; an admin's MALLOC_ARENA_MAX wins).
_ = assist_limit_malloc_arenas()
// A plugin's helper process (issue 17): no command line, no terminal handling, straight to the plugin; the words
// after the descriptor are its sandbox (docs/security.md), set up before anything else runs.
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "_plugin-helper",
    let fd = Int32(CommandLine.arguments[2])
{
    exit(assist_bridge_helper_main(fd, CommandLine.argc - 3, CommandLine.unsafeArgv + 3))
}
CrashExit.installOnTerminal()
// What is the process's, not a session's (logging, the environment plugins read, systemd's socket), set up once.
let arguments = Array(CommandLine.arguments.dropFirst())
AssistProcess.prepare(
    verbose: GlobalArguments.has("--verbose", in: arguments),
    dataDir: GlobalArguments.value(of: "--data-dir", in: arguments),
    shareDir: GlobalArguments.value(of: "--share-dir", in: arguments))
do {
    var command = try Assist.parseAsRoot(GlobalArguments.normalized(arguments))
    try command.run()
} catch let code as ExitCode {
    exit(code.rawValue)
} catch let status as ExitStatus {
    exit(status.code)
} catch let failure as CLIFailure {
    try? FileHandle.standardError.write(contentsOf: Data((PlainText.message(failure.message) + "\n").utf8))
    exit(failure.exitCode)
} catch {
    let code = Assist.exitCode(for: error)
    if code == .success {
        print(Assist.fullMessage(for: error))
        exit(0)
    }
    var message = Assist.message(for: error).split(separator: "\n").first.map(String.init) ?? "Invalid command line"
    while message.hasSuffix(".") { message.removeLast() }
    // A sentence that ends in a question ("Did you mean '--lang'?") keeps its mark, without a full stop after.
    let end = message.hasSuffix("?") || message.hasSuffix("!") ? "" : "."
    try? FileHandle.standardError.write(
        contentsOf:
            Data("\(PlainText.message(message))\(end) Run 'assist --help' for the commands.\n".utf8))
    exit(code.rawValue)
}
