import Foundation

/// Where sound goes, from `--audio-out`: the sound card (the default ALSA device unless named), a WAV file
/// that receives exactly what would be played, or nowhere.
package enum AudioTarget: Equatable {
    /// The default device, falling back to a WAV file in the data folder when there is no sound card.
    case automatic
    case alsa(String)
    case wav(URL)
    case null

    /// Reads `alsa`, `alsa:DEVICE`, `wav:PATH` or `null`; no option means automatic.
    package static func parse(_ option: String?) throws -> AudioTarget {
        guard let option else { return .automatic }
        if option == "null" { return .null }
        if option == "alsa" { return .alsa("default") }
        if option.hasPrefix("alsa:"), option.count > 5 { return .alsa(String(option.dropFirst(5))) }
        if option.hasPrefix("wav:"), option.count > 4 {
            return .wav(URL(fileURLWithPath: String(option.dropFirst(4))))
        }
        throw CLIFailure(message: "--audio-out takes alsa, alsa:DEVICE, wav:PATH or null, not \(option).", exitCode: 64)
    }

    /// The WAV file used when there is no sound card, or when it goes away.
    package static func fallbackFile(dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("speech/last-session.wav")
    }
}
