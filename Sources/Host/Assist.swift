import ArgumentParser
import AssistApp
import PluginHost

/// The `assist` command: the host of Assist's features.
struct Assist: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assist",
        abstract: "An accessibility assistant: features for blind and low-vision people, spoken and printed.",
        discussion: """
            Exit codes: 0 success; 1 a feature or check failed; 2 a plugin check crashed or timed out; \
            64 a command-line mistake.
            """,
        version: AssistVersion.current.description,
        subcommands: [
            ShellCommand.self, RunCommand.self, SayCommand.self, CueCommand.self, RecordCommand.self,
            CameraCommand.self, EventsCommand.self, OutboxCommand.self,
            PluginsCommand.self, DoctorCommand.self, SetupCommand.self,
            ProbeCommand.self, SurveyCommand.self, ListenCommand.self, VoiceCommand.self, KioskCommand.self,
        ]
    )
}

/// Options every command takes, for the shared services: the common ones and where sound and pictures come
/// from and go.
struct GlobalOptions: ParsableArguments {
    @OptionGroup var common: QuietGlobalOptions

    @Option(help: "Where sound goes: alsa[:DEVICE], wav:PATH (exactly what would be played) or null.")
    var audioOut: String?

    @Option(
        help:
            "Where recordings come from: alsa[:DEVICE], wav:PATH (a file played as the microphone, all at once) or live:PATH (the same file at its real pace)."
    )
    var mic: String?

    @Option(help: "Where pictures come from: v4l2:/dev/videoN, image:PATH, dir:PATH, video:PATH or pattern.")
    var camera: String?

    @Option(
        parsing: .unconditional,
        help: "Frames per second for picture, folder and pattern sources (or ask a camera for it).")
    var cameraFps: Double?

    var dataDir: String? { common.dataDir }
    var shareDir: String? { common.shareDir }
    var config: String? { common.config }
    var noSpeech: Bool { common.noSpeech }

    /// The same options for the host's library.
    var host: HostOptions {
        var options = common.host
        options.audioOut = audioOut
        options.mic = mic
        options.camera = camera
        options.cameraFps = cameraFps
        return options
    }
}

/// The low-vision view's options, for the commands that run features (`shell`, `run`).
struct ViewOptions: ParsableArguments {
    @Flag(help: "Show what is said in large print on a page served on 127.0.0.1; its address is printed after View:.")
    var view = false

    @Option(help: "The view's port (default: the view.port setting, else any free one). Implies --view.")
    var viewPort: Int?

    @Flag(help: "Open the view in a browser (view.browser, else chromium, else xdg-open). Implies --view.")
    var viewOpen = false

    func validate() throws {
        if let viewPort, !(0...65_535).contains(viewPort) {
            throw ValidationError("--view-port takes a port from 0 to 65535, not \(viewPort)")
        }
    }

    /// What the host is asked for; nil without any of the options (nor `view = true` in the settings).
    var request: ViewRequest? {
        guard view || viewPort != nil || viewOpen else { return nil }
        return ViewRequest(port: viewPort, open: viewOpen)
    }
}

/// The options every command takes but the sound and camera ones: `plugins permissions` has a `--camera` of
/// its own (on or off), and neither records nor films.
struct QuietGlobalOptions: ParsableArguments {
    @Option(help: "Where Assist keeps its data (default: $XDG_DATA_HOME/assist).")
    var dataDir: String?

    @Option(help: "Read-only data folder (default: ../share/assist beside the executable).")
    var shareDir: String?

    @Option(help: "A config.toml read after the system and user ones.")
    var config: String?

    @Option(help: "Another folder to search for plugins; may be repeated.")
    var pluginDir: [String] = []

    @Option(help: "Language for speech and text: en, es, ru or zh.")
    var lang: String?

    @Flag(help: "Print only; do not speak.")
    var noSpeech = false

    @Flag(help: "Log details to standard error.")
    var verbose = false

    var host: HostOptions {
        HostOptions(
            dataDir: dataDir, shareDir: shareDir, config: config, pluginDir: pluginDir, lang: lang, noSpeech: noSpeech,
            verbose: verbose)
    }
}

/// A set of the global options that the host's library takes.
protocol HostOptionGroup: ParsableArguments {
    var host: HostOptions { get }
}

extension GlobalOptions: HostOptionGroup {}
extension QuietGlobalOptions: HostOptionGroup {}

/// The arguments of a `plugins` command about one plugin: the global options and the plugin's id or short name.
struct OnePlugin<Options: HostOptionGroup>: ParsableArguments {
    @OptionGroup var global: Options

    @Argument(help: "The plugin id or short name.")
    var id: String

    /// The host's session and the plugin named; an unknown name is a failure that suggests the near ones.
    func open() throws -> (session: HostSession, record: PluginRecord) {
        let session = try HostSession(options: global.host, interactive: false)
        return (session, try PluginLookup.find(id, in: session))
    }
}
