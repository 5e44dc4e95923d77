import Foundation

/// Where the host finds its read-only data and keeps each plugin's files.
package struct AssistPaths: Sendable {
    /// The running executable.
    package var executable: URL
    /// Read-only data: `share/assist`.
    package var share: URL
    /// Writable per-user data root.
    package var data: URL
    /// Purgeable cache root.
    package var cache: URL
    /// The source tree's root when running from a SwiftPM build folder, else nil.
    package var developmentRoot: URL?
    /// Where the device's own records are kept, those about the software rather than a person (crashes and the
    /// features they turned off): `data`, except in a per-person kiosk, whose data folder is one person's sitting
    /// while these stay with the device (`ASSIST_KIOSK_DEVICE_DIR`, set when a sitting is entered).
    package var records: URL

    /// Works the paths out from the executable's location, the environment and the options given.
    ///
    /// - share: `--share-dir`, `$ASSIST_SHARE_DIR`, `<exe>/../share/assist`, then `<source root>/share/assist`.
    /// - data: `--data-dir`, `$ASSIST_DATA_DIR`, `$XDG_DATA_HOME/assist`, `~/.local/share/assist`.
    /// - cache: `<data>/cache` when `--data-dir` is given, else `$XDG_CACHE_HOME/assist`, `~/.cache/assist`.
    package static func resolve(
        dataDir: String?, shareDir: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AssistPaths {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let exeDir = exe.deletingLastPathComponent()
        let devRoot = developmentRoot(for: exeDir)
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory())

        let installedShare = exeDir.deletingLastPathComponent().appendingPathComponent("share/assist")
        let share: URL
        if let explicit = shareDir ?? environment["ASSIST_SHARE_DIR"] {
            share = URL(fileURLWithPath: explicit)
        } else if let devRoot, !FileManager.default.fileExists(atPath: installedShare.path) {
            share = devRoot.appendingPathComponent("share/assist")
        } else {
            share = installedShare
        }

        let data: URL
        let cache: URL
        if let explicit = dataDir ?? environment["ASSIST_DATA_DIR"] {
            data = URL(fileURLWithPath: explicit)
            cache = data.appendingPathComponent("cache")
        } else {
            let base =
                environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
                ?? home.appendingPathComponent(".local/share")
            data = base.appendingPathComponent("assist")
            let cacheBase =
                environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) } ?? home.appendingPathComponent(".cache")
            cache = cacheBase.appendingPathComponent("assist")
        }
        let records = environment[deviceKey].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) } ?? data
        return AssistPaths(
            executable: exe, share: share, data: data, cache: cache, developmentRoot: devRoot, records: records)
    }

    /// The environment variable naming a per-person kiosk's device folder while a sitting is the data folder.
    package static let deviceKey = "ASSIST_KIOSK_DEVICE_DIR"

    /// The source root when `directory` is `<root>/.build/<triple>/<config>` or `<root>/.build/<config>`.
    package static func developmentRoot(for directory: URL) -> URL? {
        var current = directory
        for _ in 0..<4 {
            if current.lastPathComponent == ".build" || current.lastPathComponent.hasPrefix(".build-") {
                let root = current.deletingLastPathComponent()
                let manifest = root.appendingPathComponent("Package.swift")
                return FileManager.default.fileExists(atPath: manifest.path) ? root : nil
            }
            current = current.deletingLastPathComponent()
        }
        return nil
    }

    /// Creates `url` and its parents with mode 0700 if needed.
    package static func ensurePrivateDirectory(_ url: URL) throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The file that marks a folder whose tree `makePrivate` has already tightened.
    package static let privateStamp = ".private-files-v1"

    /// Creates `url` (mode 0700) and makes it private: the folder itself always, and once per folder (a stamp
    /// file remembers) everything below it that an older version left readable by others: folders become
    /// 0700, files lose their group and other bits. Links are not followed. Returns how many were tightened.
    @discardableResult
    package static func makePrivate(_ url: URL) throws -> Int {
        try ensurePrivateDirectory(url)
        var tightened = 0
        var info = stat()
        if lstat(url.path, &info) == 0, info.st_mode & 0o077 != 0, chmod(url.path, 0o700) == 0 { tightened += 1 }
        let stamp = url.appendingPathComponent(privateStamp)
        guard !FileManager.default.fileExists(atPath: stamp.path) else { return tightened }
        // A folder gets exactly 0700; a file keeps its owner's bits.
        for item in openItems(below: url) where chmod(item.path, item.isDirectory ? 0o700 : item.mode & 0o700) == 0 {
            tightened += 1
        }
        _ = FileManager.default.createFile(
            atPath: stamp.path, contents: Data("folders 0700, files 0600\n".utf8),
            attributes: [.posixPermissions: 0o600])
        return tightened
    }

    /// The items below `url` (links not followed) that others can read, write or enter.
    package static func openItems(below url: URL) -> [(path: String, isDirectory: Bool, mode: mode_t)] {
        guard let walker = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var found: [(path: String, isDirectory: Bool, mode: mode_t)] = []
        while let relative = walker.nextObject() as? String {
            let path = url.appendingPathComponent(relative).path
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFLNK, info.st_mode & 0o077 != 0 else { continue }
            found.append((path, info.st_mode & S_IFMT == S_IFDIR, info.st_mode & 0o7777))
        }
        return found
    }
}
