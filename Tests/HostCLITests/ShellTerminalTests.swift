import Foundation
import HostTesting
import Testing

/// `assist shell` on a pseudo-terminal, keys typed one by one as a person presses them.
@Suite("The shell on a terminal")
struct ShellTerminalTests {
    let data: TemporaryDirectory

    init() throws { data = try TemporaryDirectory("assist-shell-terminal") }

    func terminal() throws -> PseudoTerminal {
        try PseudoTerminal(
            BuildProducts.assist, ["shell", "--no-speech", "--data-dir", data.url.path],
            environment: ["XDG_CONFIG_HOME": data.url.path])
    }

    /// Escape at the top menu asks before it quits; no brings the menu back, yes says goodbye and ends cleanly.
    @Test func escapeAtTheMenuAsksBeforeItQuits() throws {
        let screen = try terminal()
        #expect(screen.waitFor("Choose a feature."), "\(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Quit Assist? Y or N."), "\(screen.text)")
        #expect(screen.isRunning, "Escape alone never quits")
        screen.type("n")
        #expect(screen.waitFor("Choose a feature.", count: 2), "the menu comes back: \(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Quit Assist? Y or N.", count: 2), "\(screen.text)")
        screen.type("y")
        #expect(screen.waitFor("Goodbye."), "\(screen.text)")
        #expect(screen.waitForExit() == 0)
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: data.path("sessions").path)) ?? []
        #expect(sessions.isEmpty, "a clean end leaves no mark: \(sessions)")
    }

    /// The terminal closed (SIGHUP) while the menu is open: a clean end, never a crash.
    @Test func closingTheTerminalEndsTheSessionCleanly() throws {
        let screen = try terminal()
        #expect(screen.waitFor("Choose a feature."), "\(screen.text)")
        kill(screen.processIdentifier, SIGHUP)
        #expect(screen.waitForExit() == 0)
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: data.path("sessions").path)) ?? []
        #expect(sessions.isEmpty, "\(sessions)")
        let next = try ProcessRunner.run(
            BuildProducts.assist, ["shell", "--no-speech", "--data-dir", data.url.path], input: "",
            environment: ["XDG_CONFIG_HOME": data.url.path])
        #expect(!next.standardOutput.contains("stopped unexpectedly"), "\(next.standardOutput)")
    }
}
