import Foundation

/// Where sound goes, from `--audio-out`: a WAV file that receives exactly what would be played, or nothing.
enum AudioTarget: Equatable {
    case wav(URL)
    case null

    /// Reads `wav:PATH` or `null`; with no option, a WAV file in the data folder (until ALSA output lands).
    static func parse(_ option: String?, dataDirectory: URL) throws -> AudioTarget {
        guard let option else { return .wav(dataDirectory.appendingPathComponent("speech/last-session.wav")) }
        if option == "null" { return .null }
        if option.hasPrefix("wav:"), option.count > 4 {
            return .wav(URL(fileURLWithPath: String(option.dropFirst(4))))
        }
        throw CLIFailure(message: "--audio-out takes wav:PATH or null, not \(option).", exitCode: 64)
    }
}
