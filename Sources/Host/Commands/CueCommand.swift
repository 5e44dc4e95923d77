import ArgumentParser
import AssistApp
import Audio
import Foundation

/// `assist cue PATTERN`: plays a guidance pattern or an earcon, for admins testing a set-up.
struct CueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cue",
        abstract: "Play a cue: dot, dash, dot-dash, dash-dot, continuous, tone (--pitch) or an earcon (tap, ...).",
        discussion: "Earcons: \(Earcon.allCases.map(\.rawValue).joined(separator: ", ")).")

    @OptionGroup var global: GlobalOptions

    @Option(help: "How close the target is, 0.1 (far) to 1 (centred): faster and louder when higher.")
    var intensity: Double = 0.58

    @Option(parsing: .unconditional, help: "Stereo position, -1 (left) to 1 (right).")
    var pan: Double = 0

    @Option(help: "Pitch in Hz instead of the pattern's own (20 to 8000).")
    var pitch: Double?

    @Option(help: "How long a guidance pattern plays, in seconds (0.1 to 60).")
    var seconds: Double = 2

    @Argument(help: "The pattern or earcon name.")
    var pattern: String

    func validate() throws {
        guard CuePattern(rawValue: pattern) != nil || Earcon(rawValue: pattern) != nil else {
            let names = (CuePattern.allCases.map(\.rawValue) + Earcon.allCases.map(\.rawValue)).joined(separator: ", ")
            throw ValidationError("There is no cue called \(pattern); choose one of \(names)")
        }
        guard (0.1...1).contains(intensity) else { throw ValidationError("--intensity must be between 0.1 and 1") }
        guard (-1...1).contains(pan) else { throw ValidationError("--pan must be between -1 and 1") }
        guard (0.1...60).contains(seconds) else { throw ValidationError("--seconds must be between 0.1 and 60") }
        if let pitch, !(20...8_000).contains(pitch) { throw ValidationError("--pitch must be between 20 and 8000 Hz") }
    }

    func run() throws {
        let session = try HostSession(options: global.host, interactive: false, speaks: false, sounds: true)
        defer { session.shutdown() }
        guard let sound = session.sound else { return }
        if !sound.cues.currentSettings.enabled {
            throw CLIFailure(message: "Cues are turned off (cues.enabled = false in the config).")
        }
        if let earcon = Earcon(rawValue: pattern) {
            session.announcer.print("Playing the \(earcon.rawValue) earcon, pan \(pan).")
            sound.cues.play(earcon, gain: 1, pan: pan)
        } else if let guidance = CuePattern(rawValue: pattern) {
            session.announcer.print(
                "Playing \(guidance.rawValue) at intensity \(intensity), pan \(pan), for \(seconds) seconds.")
            sound.cues.guidance(guidance, intensity: intensity, pan: pan, pitchHz: pitch)
            Thread.sleep(forTimeInterval: seconds)
            sound.cues.stop()
        }
        sound.mixer.waitUntilIdle(timeoutSeconds: 2)
    }
}
