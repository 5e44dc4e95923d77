import AssistCore
import Audio
import Foundation
import Voice

/// Where what the echo canceller learnt of the room is kept between sessions (`EchoPath`, docs/voice.md "The room
/// remembered"): `voice/echo-path.json` in the device's data folder for the shell; `assist listen --echo-path
/// FILE` names its own. Written whole (0600), never half.
enum EchoPathFile {
    static func url(deviceFolder: URL) -> URL {
        deviceFolder.appendingPathComponent("voice").appendingPathComponent("echo-path.json")
    }

    /// The path kept at `url` for `devices`; nil when there is none, or with why it is not used (said in the trace
    /// or to standard error; a path that is not used is written anew once this session learns the room).
    static func load(_ url: URL, devices: String) -> (path: EchoPath?, refused: String?) {
        guard let data = try? Data(contentsOf: url) else { return (nil, nil) }
        switch EchoPath.decode(data, devices: devices) {
        case .success(let path): return (path, nil)
        case .failure(let refusal): return (nil, "The echo path \(url.path) is not used: \(refusal).")
        }
    }

    static func keep(_ path: EchoPath, at url: URL) throws {
        try AssistPaths.ensurePrivateDirectory(url.deletingLastPathComponent())
        try PrivateFile.write(path.encoded(), to: url)
    }

    /// The devices a live session's path holds for: where its sound goes and the microphone.
    static func devices(sink: String, microphone: AudioInputSpec) -> String {
        let heard =
            switch microphone {
            case .alsa(let device): "alsa:\(device)"
            case .wav(let url): "wav:\(url.path)"
            case .live(let url): "live:\(url.path)"
            }
        return "\(sink) → \(heard)"
    }
}
