import Foundation

/// `assist shell`: a session with the keyboard, its voice mode for this session, and the menu until it is quit.
package enum ShellRun {
    /// `--voice` as a `voice.mode` value.
    package static let voiceModes = [
        "push": "push-to-talk", "push-to-talk": "push-to-talk", "always": "always", "wake": "wake-word",
        "wake-word": "wake-word", "off": "off",
    ]

    /// Runs the shell on `terminal` (the process's own, or a test's virtual one) until it is quit or the terminal
    /// goes; `voice` is `--voice`'s word, checked against `voiceModes` by the command line.
    package static func run(
        _ options: HostOptions, voice: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        terminal: SessionTerminal = .standard
    ) throws {
        let session = try HostSession(options: options, interactive: true, environment: environment, terminal: terminal)
        if let voice, let mode = voiceModes[voice.lowercased()] {
            // For this session only, as --config would set it; an admin's lock keeps its own.
            if session.settings.isLocked("voice.mode") {
                session.announcer.say("Voice commands are set by your administrator; --voice \(voice) is not used.")
            } else {
                session.settings.apply(["voice.mode": .string(mode)], admin: false)
            }
        }
        ShellMenu.run(session: session, microphone: options.mic)
    }
}
