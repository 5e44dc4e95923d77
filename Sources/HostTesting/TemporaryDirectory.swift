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
