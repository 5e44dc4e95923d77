import Foundation

/// `ASSIST_VOICE_TRACE=FILE`: what voice heard and did, for admins and tests finding out why a phrase was not
/// taken. Each is nil without the variable.
package enum VoiceTrace {
    /// Each phrase list, each phrase heard and what became of it, appended to FILE.
    package static let line: (@Sendable (String) -> Void)? = {
        guard let path = ProcessInfo.processInfo.environment["ASSIST_VOICE_TRACE"], !path.isEmpty else { return nil }
        return { line in
            guard
                let handle = FileHandle(forWritingAtPath: path)
                    ?? {
                        _ = FileManager.default.createFile(atPath: path, contents: nil)
                        return FileHandle(forWritingAtPath: path)
                    }()
            else { return }
            handle.seekToEndOfFile()
            handle.write(Data("\(String(format: "%.3f", ProcessInfo.processInfo.systemUptime)) \(line)\n".utf8))
            try? handle.close()
        }
    }()

    /// The sound fed to the recogniser, to FILE.raw (16 kHz mono 16-bit), to be heard again by `assist listen`.
    package static let sound = raw(".raw")

    /// With the echo canceller, what the speakers played, on the microphone's time line, to FILE.played.raw
    /// (16 kHz mono 16-bit) beside FILE.raw: a test makes the room's echo of it.
    package static let played = raw(".played.raw")

    /// Appends sound to the trace's file with `suffix` (made empty first).
    private static func raw(_ suffix: String) -> (@Sendable ([Int16]) -> Void)? {
        guard let path = ProcessInfo.processInfo.environment["ASSIST_VOICE_TRACE"], !path.isEmpty else { return nil }
        let raw = path + suffix
        _ = FileManager.default.createFile(atPath: raw, contents: nil)
        return { samples in
            guard let handle = FileHandle(forWritingAtPath: raw) else { return }
            handle.seekToEndOfFile()
            samples.withUnsafeBufferPointer { handle.write(Data(buffer: $0)) }
            try? handle.close()
        }
    }
}
