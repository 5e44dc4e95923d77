/// What `assist run read-text` was asked to do: its arguments and settings.
public struct ReadTextOptions: Equatable, Sendable {
    /// A photo to read instead of the camera.
    public var image: String?
    /// A document (PDF) or a picture to read instead of the camera (`--file`).
    public var file: String?
    /// Print how to run it, and end (`--help`).
    public var help = false
    /// Print all the text in reading order as soon as it is recognised (for braille displays).
    public var transcript = false
    /// Finish the feature when the end of the text is reached (for scripts).
    public var exitAtEnd = false
    public var area = Area.page
    public var order = ReadingOrder.Mode.columns
    public var navigation = SentenceBuilder.Navigation.sentences
    public var streaming = true

    public enum Area: String, Sendable {
        case page, full
    }

    public init() {}

    /// Parses the feature's arguments over `settings` (read-text.area, .order, .navigation, .streaming).
    public static func parse(_ arguments: [String], settings: [String: String] = [:]) throws(ReadTextError)
        -> ReadTextOptions
    {
        var options = ReadTextOptions()
        options.area = settings["read-text.area"].flatMap(Area.init) ?? .page
        options.order = settings["read-text.order"].flatMap(ReadingOrder.Mode.init) ?? .columns
        options.navigation = settings["read-text.navigation"].flatMap(SentenceBuilder.Navigation.init) ?? .sentences
        options.streaming = settings["read-text.streaming"].map { $0 != "false" && $0 != "off" } ?? true
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--image":
                guard let path = remaining.popFirst() else { throw ReadTextError("--image needs the path of a photo.") }
                options.image = path
            case "--file":
                guard let path = remaining.popFirst() else {
                    throw ReadTextError("--file needs the path of a PDF document or a picture.")
                }
                options.file = path
            case "--help", "-h": options.help = true
            case "--transcript": options.transcript = true
            case "--exit-at-end": options.exitAtEnd = true
            case "--full": options.area = .full
            case "--rows": options.order = .rows
            case "--lines": options.navigation = .lines
            case "--no-streaming": options.streaming = false
            default:
                throw ReadTextError(
                    "Unknown option \(argument). read-text takes --image PATH, --file PATH, --transcript, --exit-at-end, "
                        + "--full, --rows, --lines, --no-streaming and --help.")
            }
        }
        return options
    }
}

/// A read-text failure: one sentence to speak.
public struct ReadTextError: Error, Sendable {
    public var message: String
    /// A document locked with a password that was not given or does not open it.
    public var locked = false
    public init(_ message: String, locked: Bool = false) {
        self.message = message
        self.locked = locked
    }
}
