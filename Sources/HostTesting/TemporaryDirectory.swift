import Foundation

/// A fresh folder under the system temp directory, removed when the value is dropped.
package final class TemporaryDirectory: @unchecked Sendable {  // because: immutable after init
    /// The folder.
    package let url: URL

    package init(_ prefix: String = "assist-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the folder.
    package func path(_ relative: String) -> URL {
        url.appendingPathComponent(relative)
    }

    /// Writes `text` to `relative`, creating folders.
    @discardableResult
    package func write(_ relative: String, _ text: String) throws -> URL {
        let target = path(relative)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target)
        return target
    }
}

/// A small tmpfs for tests of a full disk, mounted inside a test folder; nil (with the reason printed) where
/// this machine cannot mount one (not root, or in a container without the capability).
package final class SmallDisk {
    package let url: URL

    package init?(at url: URL, megabytes: Int) throws {
        self.url = url
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let mounted = try ProcessRunner.run(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", url.path])
        guard mounted.status == 0 else {
            print("skipped: a small tmpfs cannot be mounted here (\(mounted.standardError.prefix(80)))")
            return nil
        }
    }

    deinit { _ = try? ProcessRunner.run("/bin/umount", [url.path]) }
}
