import Audio
import Foundation

/// The options every command takes, as the host's services need them: what `assist`'s command line parsed
/// (`GlobalOptions` in the executable), or what a test sets.
package struct HostOptions: Sendable {
    package var dataDir: String?
    package var shareDir: String?
    package var config: String?
    package var pluginDir: [String] = []
    package var lang: String?
    package var noSpeech = false
    package var audioOut: String?
    package var mic: String?
    package var camera: String?
    package var cameraFps: Double?
    package var verbose = false
    /// A data command (`assist survey export`): standard output holds only its data, and every line for
    /// people (what is said, warnings) goes to standard error.
    package var dataCommand = false
    /// `--view`: the low-vision view's page on loopback (docs/view.md); nil without it.
    package var view: ViewRequest?
    /// The program started as a plugin's helper process: nil for the running one (`assist` itself); a test
    /// process that runs the app in process names the built `assist`.
    package var helperExecutable: URL?

    package init(
        dataDir: String? = nil, shareDir: String? = nil, config: String? = nil, pluginDir: [String] = [],
        lang: String? = nil, noSpeech: Bool = false, audioOut: String? = nil, mic: String? = nil,
        camera: String? = nil, cameraFps: Double? = nil, verbose: Bool = false
    ) {
        self.dataDir = dataDir
        self.shareDir = shareDir
        self.config = config
        self.pluginDir = pluginDir
        self.lang = lang
        self.noSpeech = noSpeech
        self.audioOut = audioOut
        self.mic = mic
        self.camera = camera
        self.cameraFps = cameraFps
        self.verbose = verbose
    }

    /// The options to hand on to a child `assist` process.
    package var passThrough: [String] {
        var arguments: [String] = []
        if let dataDir { arguments += ["--data-dir", dataDir] }
        if let shareDir { arguments += ["--share-dir", shareDir] }
        if verbose { arguments.append("--verbose") }
        return arguments + ["--no-speech"]
    }

    /// Where `--mic` points (ALSA's default device without it); a bad value is a usage error.
    package func microphone() throws -> AudioInputSpec {
        guard let option = mic else { return .alsa("default") }
        guard let parsed = AudioInputSpec(option) else {
            throw CLIFailure(
                message: "--mic takes alsa, alsa:DEVICE, wav:PATH or live:PATH, not \(option).", exitCode: 64)
        }
        return parsed
    }
}

/// A failure with its one-line message and exit code: the command prints the message and exits with the code.
package struct CLIFailure: Error {
    package var message: String
    package var exitCode: Int32 = 1

    package init(message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// A command that ends with this exit status, having said why already.
package struct ExitStatus: Error {
    package var code: Int32

    package init(code: Int32) { self.code = code }
}
