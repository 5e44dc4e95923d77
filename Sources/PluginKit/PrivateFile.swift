import Foundation

/// A file a plugin writes whole, readable by its owner only: written beside its place as `.<name>.partial`
/// (0600) and renamed over it, so a reader, or a crash, finds the old file or the new one, never half.
public enum PrivateFile {
    /// Writes `data` to `url` that way; false (and no partial file left) when it cannot.
    @discardableResult
    public static func writeWhole(_ data: Data, to url: URL) -> Bool {
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        guard
            FileManager.default.createFile(
                atPath: partial.path, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(partial.path, url.path) == 0
        else {
            try? FileManager.default.removeItem(at: partial)
            return false
        }
        return true
    }
}
