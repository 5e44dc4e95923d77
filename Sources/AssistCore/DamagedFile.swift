import Foundation

/// A file Assist cannot read, kept aside whole rather than deleted or overwritten: `<name>.damaged-<UTC time>`.
package enum DamagedFile {
    /// Moves `url` (and each of `companions`, suffixes of its name such as "-wal") aside; the new name.
    package static func setAside(_ url: URL, companions: [String] = [], now: Date = Date()) throws -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let aside = URL(fileURLWithPath: url.path + ".damaged-" + formatter.string(from: now))
        guard rename(url.path, aside.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
        for suffix in companions { _ = rename(url.path + suffix, aside.path + suffix) }
        return aside
    }
}
