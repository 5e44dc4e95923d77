import ArgumentParser
import AssistApp
import Camera
import Foundation

/// `assist camera`: checks the picture source an admin set up, without starting a feature.
struct CameraCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera",
        abstract: "Check the camera or picture source: info, a timed test with delivery counters, a snapshot.",
        subcommands: [CameraTestCommand.self, CameraSnapshotCommand.self],
        defaultSubcommand: CameraTestCommand.self)
}

/// Options shared by the camera commands: what a subscriber asks for.
struct FrameOptions: ParsableArguments {
    @Option(help: "Pixel format: bgr24, rgb24, gray8 or yuyv.")
    var format: String = "bgr24"

    @Option(help: "Scale frames down to at most this width (0: no limit).")
    var maxWidth: Int = 0

    @Option(help: "Digital zoom, 1 to 8 (a centred crop).")
    var zoom: Double = 1

    @Flag(help: "Crop the centred square first.")
    var square = false

    func request(maxFramesPerSecond: Double = 0) throws -> SubscriptionRequest {
        let formats: [String: PixelFormat] = ["bgr24": .bgr24, "rgb24": .rgb24, "gray8": .gray8, "yuyv": .yuyv]
        guard let pixel = formats[format.lowercased()] else {
            throw ValidationError("--format must be bgr24, rgb24, gray8 or yuyv")
        }
        guard (1...8).contains(zoom) else { throw ValidationError("--zoom must be between 1 and 8") }
        guard maxWidth >= 0 else { throw ValidationError("--max-width cannot be negative") }
        return SubscriptionRequest(
            format: pixel, maxWidth: maxWidth, maxFramesPerSecond: maxFramesPerSecond, zoom: zoom, square: square)
    }
}

/// `assist camera test`: subscribes like plugins would and prints what each subscriber got.
struct CameraTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Capture for a few seconds with one or more subscribers and print frames, drops and latency.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var frames: FrameOptions

    @Option(help: "How long to capture, in seconds (0.2 to 60).")
    var seconds: Double = 3

    @Option(help: "How many subscribers (1 to 8).")
    var subscribers: Int = 1

    @Option(help: "Make the last subscriber this slow, in ms per frame, to show that it drops only its own frames.")
    var slowMs: Double = 0

    @Option(help: "At most this many frames a second per subscriber (0: every frame).")
    var maxFps: Double = 0

    func validate() throws {
        guard (0.2...60).contains(seconds) else { throw ValidationError("--seconds must be between 0.2 and 60") }
        guard (1...8).contains(subscribers) else { throw ValidationError("--subscribers must be between 1 and 8") }
    }

    func run() throws {
        let request = try frames.request(maxFramesPerSecond: maxFps)
        try CameraCheck.test(
            options: global.host, request: request, seconds: seconds, subscribers: subscribers, slowMs: slowMs)
    }
}

/// `assist camera snapshot OUT`: saves one frame as PPM (colour) or PGM (gray8).
struct CameraSnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Save one frame as a PPM (colour) or PGM (gray8) file.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var frames: FrameOptions

    @Option(help: "Skip this many frames first, while a camera settles its exposure.")
    var skip: Int = 0

    @Argument(help: "The file to write.")
    var output: String

    func run() throws {
        try CameraCheck.snapshot(options: global.host, request: try frames.request(), skip: skip, output: output)
    }
}
