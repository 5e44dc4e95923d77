import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech
import Storage

/// assist.playback/1.
package protocol PlaybackProviding: Sendable {
    /// Plays a recording over whatever else sounds. Main loop.
    func play(_ clip: WavFile, gain: Double)
    func stop()
    var isPlaying: Bool { get }
}

struct LocalPlayback: PlaybackProviding {
    let player: ClipPlayer?

    func play(_ clip: WavFile, gain: Double) { player?.play(clip, gain: gain) }
    func stop() { player?.stop() }
    var isPlaying: Bool { player?.isPlaying ?? false }
}
