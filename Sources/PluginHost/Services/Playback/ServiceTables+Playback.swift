import Audio
import Foundation
import PluginAPI

extension ServiceTables {
    // MARK: assist.playback/1

    nonisolated(unsafe) static let playbackTable: UnsafeMutablePointer<assist_playback_service> = {
        var table = assist_playback_service()
        table.struct_size = UInt32(MemoryLayout<assist_playback_service>.size)
        table.play_file = { host, path, gain, err in
            guard let context = PluginContext.from(host), context.onMain("playback.play_file") else {
                return ASSIST_E_INVALID
            }
            guard let path, gain.isFinite else {
                context.misbehaving("playback.play_file with NULL path or a gain that is not a number")
                return ASSIST_E_INVALID
            }
            let url: URL
            do {
                url = try context.services.storage.media.fileToUpload(String(cString: path))
            } catch {
                err?.pointee = strdup("the file is outside the plugin's media and cache folders")
                return ASSIST_E_PERMISSION
            }
            let clip: WavFile
            do {
                clip = try WavFile.read(url)
            } catch {
                err?.pointee = strdup("\(url.lastPathComponent) is not a 16-bit PCM WAV file")
                return ASSIST_E_INVALID
            }
            // A recording played back is heard alone: the plugin's own speech gives way.
            context.services.speech.cancelAll()
            context.services.playback.play(clip, gain: gain)
            context.holdings.hold("playback") { [weak context] in context?.services.playback.stop() }
            return ASSIST_OK
        }
        table.stop = { host in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            context.services.playback.stop()
            return ASSIST_OK
        }
        table.is_playing = { host in PluginContext.from(host)?.services.playback.isPlaying ?? false }
        return allocate(table)
    }()
}
