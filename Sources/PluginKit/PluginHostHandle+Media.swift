import Foundation
import PluginAPI

/// The plugin's media files (`assist.storage/1`): recordings and pictures under its private media folder,
/// counted against the user's storage quota, with a cache the host may empty.
extension PluginHostHandle {
    /// Creates an empty file `name` ("clips/cup-1.mp4", folders made as needed) in the media folder and
    /// returns its full path. Throws `.permission` for a name that would leave the folder, `.io` when the
    /// quota is used up. Any thread.
    ///
    ///     let path = try host.createMediaFile("clips/cup-1.mp4")
    public func createMediaFile(_ name: String) throws(PluginStatus) -> String {
        guard let create = tables.storage?.pointee.media_create else { throw PluginStatus.unsupported }
        return try withPathBuffer { buffer, error throws(PluginStatus) in
            try PluginStatus.check(create(raw, name, buffer.baseAddress, buffer.count, &error), error)
        }
    }

    /// Throws `.io` with the reason when `bytes` more would not fit in the quota: check before a long
    /// recording. Any thread.
    public func reserveMedia(bytes: Int64) throws(PluginStatus) {
        guard let reserve = tables.storage?.pointee.media_reserve else { throw PluginStatus.unsupported }
        var error: UnsafeMutablePointer<CChar>?
        try PluginStatus.check(reserve(raw, bytes, &error), error)
    }

    /// Moves a media file to the cache (the host may delete it to free space) and returns its new path. Any
    /// thread.
    public func moveMediaToCache(_ name: String) throws(PluginStatus) -> String {
        guard let move = tables.storage?.pointee.media_to_cache else { throw PluginStatus.unsupported }
        return try withPathBuffer { buffer, error throws(PluginStatus) in
            try PluginStatus.check(move(raw, name, buffer.baseAddress, buffer.count, &error), error)
        }
    }

    /// Deletes a media file, or one in the cache. Throws `.notFound` when it is absent. Any thread.
    public func deleteMedia(_ name: String, inCache: Bool = false) throws(PluginStatus) {
        guard let delete = tables.storage?.pointee.media_delete else { throw PluginStatus.unsupported }
        try PluginStatus.check(delete(raw, name, inCache))
    }

    /// Bytes used by media and cache together, and the quota (setting `storage.quota-mb`). Any thread.
    public func mediaUsage() throws(PluginStatus) -> (used: Int64, quota: Int64) {
        guard let usage = tables.storage?.pointee.media_usage else { throw PluginStatus.unsupported }
        var used: Int64 = 0
        var quota: Int64 = 0
        try PluginStatus.check(usage(raw, &used, &quota))
        return (used, quota)
    }

    private func withPathBuffer(
        _ body: (UnsafeMutableBufferPointer<CChar>, inout UnsafeMutablePointer<CChar>?) throws(PluginStatus) -> Void
    ) throws(PluginStatus) -> String {
        var buffer = [CChar](repeating: 0, count: 4_096)
        var error: UnsafeMutablePointer<CChar>?
        try buffer.withUnsafeMutableBufferPointer { pointer throws(PluginStatus) in try body(pointer, &error) }
        return String(cBuffer: buffer)
    }
}

extension PluginHostHandle {
    /// Plays a 16-bit PCM WAV file from the plugin's media or cache folder (a take played back), replacing
    /// one playing. Throws `.unsupported` on a host without `assist.playback/1`, `.permission` for a file
    /// elsewhere, `.invalid` for one that is not PCM WAV. Wraps `assist_playback_service.play_file`. [main]
    ///
    ///     try host.playSound(file: path)
    public func playSound(file path: String, gain: Double = 1) throws(PluginStatus) {
        guard let play = tables.playback?.pointee.play_file else { throw PluginStatus.unsupported }
        var error: UnsafeMutablePointer<CChar>?
        try PluginStatus.check(play(raw, path, gain, &error), error)
    }

    /// Stops a clip from `playSound`. Wraps `assist_playback_service.stop`. Any thread.
    public func stopSound() {
        _ = tables.playback?.pointee.stop?(raw)
    }
}
