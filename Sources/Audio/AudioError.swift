/// Why an audio operation failed: a code to branch on, a sentence to speak, and the underlying cause.
package struct AudioError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    package enum Code: Hashable, Sendable { case noDevice, deviceLost, badFile, unsupported, io }

    package let code: Code
    /// One speakable sentence saying what is wrong and what to do.
    package let message: String
    /// The C library's description of the underlying error, when there is one.
    package let cause: String?

    package var description: String { message }

    /// The sound device could not be opened; `capture` for a microphone.
    package static func noDevice(_ name: String, capture: Bool, cause: String) -> AudioError {
        let message =
            capture
            ? "The microphone \(name) cannot be opened. Check 'arecord -l', or record from a file with --mic wav:PATH."
            : "The sound device \(name) cannot be opened. Check 'aplay -l', or choose one with --audio-out."
        return AudioError(code: .noDevice, message: message, cause: cause)
    }

    /// The sound device stopped answering while in use (unplugged, or taken by another program).
    package static func deviceLost(_ name: String, cause: String) -> AudioError {
        AudioError(code: .deviceLost, message: "The sound device \(name) has gone away.", cause: cause)
    }

    /// A WAV file that cannot be read.
    package static func badFile(_ path: String, reason: String) -> AudioError {
        AudioError(code: .badFile, message: "The sound file \(path) cannot be used: \(reason).", cause: nil)
    }

    /// A request the device or file cannot satisfy.
    package static func unsupported(_ what: String) -> AudioError {
        AudioError(code: .unsupported, message: what, cause: nil)
    }

    /// A file could not be written or read.
    package static func io(_ path: String, cause: String) -> AudioError {
        AudioError(code: .io, message: "The sound file \(path) cannot be written: \(cause).", cause: cause)
    }
}
