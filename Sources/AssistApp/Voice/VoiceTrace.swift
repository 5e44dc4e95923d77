import Foundation

/// `ASSIST_VOICE_TRACE=FILE`: what voice heard and did, for admins and tests finding out why a phrase was not
/// taken. Read from a session's environment (`HostSession.environment`), so two sessions in one process trace
/// to their own files; made once a session, as making it empties the sound files. Each is nil without the
/// variable.
package struct VoiceTrace: Sendable {
    /// Each phrase list, each phrase heard and what became of it, appended to FILE.
    package let line: (@Sendable (String) -> Void)?
    /// The sound fed to the recogniser, to FILE.raw (16 kHz mono 16-bit), to be heard again by `assist listen`.
    package let sound: (@Sendable ([Int16]) -> Void)?
    /// With the echo canceller, what the speakers played, on the microphone's time line, to FILE.played.raw
    /// (16 kHz mono 16-bit) beside FILE.raw: a test makes the room's echo of it.
    package let played: (@Sendable ([Int16]) -> Void)?

    package init(environment: [String: String]) {
        let path = environment["ASSIST_VOICE_TRACE"].flatMap { $0.isEmpty ? nil : $0 }
        line = path.map(Self.lines)
        sound = path.map { Self.raw($0 + ".raw") }
        played = path.map { Self.raw($0 + ".played.raw") }
    }

    private static func lines(to path: String) -> @Sendable (String) -> Void {
        { line in
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
    }

    /// Appends sound to the file `raw` (made empty first).
    private static func raw(_ raw: String) -> @Sendable ([Int16]) -> Void {
        _ = FileManager.default.createFile(atPath: raw, contents: nil)
        return { samples in
            guard let handle = FileHandle(forWritingAtPath: raw) else { return }
            handle.seekToEndOfFile()
            samples.withUnsafeBufferPointer { handle.write(Data(buffer: $0)) }
            try? handle.close()
        }
    }
}
