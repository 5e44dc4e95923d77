/// Why the camera failed: a code to branch on, a sentence to speak, and the underlying cause.
package struct CameraError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    package enum Code: Hashable, Sendable {
        case missing, busy, unsupported, lost, damaged, badFile, badSpec, ended, incomplete
    }

    package let code: Code
    /// One speakable sentence: what is wrong and what to do.
    package let message: String
    /// The underlying errno text or library reason.
    package let cause: String?

    package var description: String { message }

    /// No such device.
    package static func missing(_ path: String, cause: String?) -> CameraError {
        CameraError(
            code: .missing,
            message: "There is no camera at \(path). Plug one in, or choose another with --camera.",
            cause: cause)
    }

    /// Another program is using the camera.
    package static func busy(_ path: String, cause: String?) -> CameraError {
        CameraError(
            code: .busy, message: "The camera \(path) is in use by another program. Close it and try again.",
            cause: cause)
    }

    /// The device cannot stream a format Assist converts.
    package static func unsupported(_ path: String, cause: String?) -> CameraError {
        CameraError(
            code: .unsupported,
            message: "The device \(path) cannot be used as a camera: \(cause ?? "it does not stream video").",
            cause: cause)
    }

    /// The camera went away while streaming.
    package static func lost(_ path: String, cause: String?) -> CameraError {
        CameraError(code: .lost, message: "The camera \(path) was disconnected.", cause: cause)
    }

    /// The camera is there but its frames cannot be read (decoded or transferred), for seconds on end;
    /// `quiet` when there is nothing to say yet or again (the capture loop only takes its turn).
    package static func damaged(_ path: String, quiet: Bool = false) -> CameraError {
        CameraError(
            code: .damaged,
            message:
                "The camera \(path) sends pictures that cannot be read. Try another USB port or cable; Assist keeps trying.",
            cause: quiet ? quietly : nil)
    }

    /// The cause of a `damaged` error that is not to be said.
    package static let quietly = "not to be said"

    /// Assist's own picture library (libAssistMedia.so) cannot be loaded.
    package static func incomplete(_ cause: String) -> CameraError {
        CameraError(
            code: .incomplete,
            message:
                "Assist cannot convert camera pictures: its library libAssistMedia.so is missing or broken. Reinstall Assist.",
            cause: cause)
    }

    /// A picture, video or folder that cannot be read.
    package static func badFile(_ path: String, reason: String) -> CameraError {
        CameraError(code: .badFile, message: "The picture source \(path) cannot be used: \(reason).", cause: reason)
    }

    /// A `--camera` value Assist does not understand.
    package static func badSpec(_ text: String) -> CameraError {
        CameraError(
            code: .badSpec,
            message:
                "--camera takes v4l2:/dev/videoN, image:PATH, dir:PATH, video:PATH or pattern, not \(text).",
            cause: nil)
    }

    /// A file source reached its end.
    package static let ended = CameraError(code: .ended, message: "The pictures have ended.", cause: nil)
}
