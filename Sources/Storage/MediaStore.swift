import Foundation

/// A plugin's files: recordings and pictures it owns (`<data>/plugins/<id>/media`) and a purgeable cache
/// (`<cache>/plugins/<id>`), with a disk quota over both. Names are plain relative paths; `..`, absolute
/// paths and symbolic links that lead outside are refused. Any thread (file operations are atomic renames
/// or single calls).
package struct MediaStore: Sendable {
    /// Where the plugin's own files live.
    package let media: URL
    /// Where files go that may be deleted to free space.
    package let cache: URL
    /// The most bytes the plugin may keep in both folders and its databases.
    package let quotaBytes: Int64
    /// The folder of the plugin's databases (`*.sqlite` and their journals), counted in the quota too.
    package let databases: URL?

    package init(media: URL, cache: URL, quotaBytes: Int64, databases: URL? = nil) {
        self.media = media.standardizedFileURL
        self.cache = cache.standardizedFileURL
        self.quotaBytes = quotaBytes
        self.databases = databases
    }

    /// Where the file `name` is (in media, or in the cache with `inCache`), after checking the name.
    package func url(for name: String, inCache: Bool = false) throws(StorageError) -> URL {
        let root = inCache ? cache : media
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\0"),
            !name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        else { throw .badPath(name) }
        let candidate = root.appendingPathComponent(name).standardizedFileURL
        // A symbolic link along the way may point elsewhere: compare real paths of what exists.
        guard Self.realPath(candidate).hasPrefix(Self.realPath(root) + "/") else { throw .badPath(name) }
        return candidate
    }

    /// The real path of `url`: its deepest existing ancestor resolved with realpath(3), plus the rest.
    static func realPath(_ url: URL) -> String {
        var existing = url
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        guard let resolved = realpath(existing.path, nil) else { return url.path }
        defer { free(resolved) }
        return ([String(cString: resolved)] + rest).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
    }

    /// Creates an empty file for the plugin to write (a new recording) and returns its path; refused when the
    /// quota is already used up, and when `name` exists.
    package func create(_ name: String) throws(StorageError) -> URL {
        let target = try url(for: name)
        let used = usage()
        guard used < quotaBytes else { throw .quota(usedBytes: used, limitBytes: quotaBytes) }
        do {
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("Creating a folder", cause: "\(error.localizedDescription)")
        }
        guard !FileManager.default.fileExists(atPath: target.path) else {
            throw .io("Creating \(name)", cause: "it exists")
        }
        guard FileManager.default.createFile(atPath: target.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw .io("Creating \(name)", cause: "the folder is not writable") }
        return target
    }

    /// Checks that `additionalBytes` more fit in the quota (call before writing a large file).
    package func reserve(_ additionalBytes: Int64) throws(StorageError) {
        let used = usage()
        guard used + additionalBytes <= quotaBytes else { throw .quota(usedBytes: used, limitBytes: quotaBytes) }
        // The quota is no promise the disk has room: refuse now rather than fail half-way through a recording.
        if let free = freeBytes(), additionalBytes > free { throw .diskFull }
    }

    /// Bytes free to an unprivileged user on the media folder's file system (its nearest existing ancestor).
    package func freeBytes() -> Int64? {
        var folder = media
        while !FileManager.default.fileExists(atPath: folder.path), folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
        }
        var stats = statvfs()
        guard statvfs(folder.path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    /// Moves a media file to the cache (sent, and kept only until space is needed).
    package func moveToCache(_ name: String) throws(StorageError) -> URL {
        let source = try url(for: name)
        let target = try url(for: name, inCache: true)
        guard FileManager.default.fileExists(atPath: source.path) else { throw .missing(name) }
        do {
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.moveItem(at: source, to: target)
        } catch {
            throw .io("Moving \(name) to the cache", cause: error.localizedDescription)
        }
        return target
    }

    /// Deletes a file from media or the cache.
    package func delete(_ name: String, inCache: Bool = false) throws(StorageError) {
        let target = try url(for: name, inCache: inCache)
        guard FileManager.default.fileExists(atPath: target.path) else { throw .missing(name) }
        do { try FileManager.default.removeItem(at: target) } catch {
            throw .io("Deleting \(name)", cause: error.localizedDescription)
        }
    }

    /// The files in media (or the cache), as names relative to their folder, sorted.
    package func list(inCache: Bool = false) -> [String] {
        let root = inCache ? cache : media
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else {
            return []
        }
        var names: [String] = []
        for case let file as URL in walker
        where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            names.append(String(file.standardizedFileURL.path.dropFirst(root.path.count + 1)))
        }
        return names.sorted()
    }

    /// Bytes used in media, the cache and the databases together.
    package func usage() -> Int64 { mediaUsage() + databaseUsage() }

    /// Bytes of the databases and their journals (`<name>.sqlite`, `-wal`, `-shm`, `-journal`).
    package func databaseUsage() -> Int64 {
        guard let databases, let names = try? FileManager.default.contentsOfDirectory(atPath: databases.path) else {
            return 0
        }
        return names.filter { $0.contains(".sqlite") }.reduce(0) { total, name in
            var info = stat()
            return total + (lstat(databases.appendingPathComponent(name).path, &info) == 0 ? Int64(info.st_size) : 0)
        }
    }

    /// Bytes used in media and the cache.
    package func mediaUsage() -> Int64 {
        [media, cache].reduce(0) { total, root in
            let files = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
            var bytes: Int64 = 0
            while let file = files?.nextObject() as? URL {
                guard let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]),
                    values.isRegularFile == true
                else { continue }
                bytes += Int64(values.fileSize ?? 0)
            }
            return total + bytes
        }
    }
}

extension MediaStore {
    /// A file the plugin wants uploaded: a name in its media folder, or a full path inside its media or cache
    /// folder (as `create` and `moveToCache` return). Anything else is refused.
    package func fileToUpload(_ path: String) throws(StorageError) -> URL {
        guard path.hasPrefix("/") else { return try url(for: path) }
        let candidate = URL(fileURLWithPath: path).standardizedFileURL
        let real = Self.realPath(candidate)
        for root in [media, cache] where real.hasPrefix(Self.realPath(root) + "/") { return candidate }
        throw .badPath(path)
    }
}
