import CArchiveShims
import Digest
import Foundation

/// One file in a package, as the checking pass saw it.
package struct PackageFile: Equatable, Sendable {
    package var size: Int64
    package var sha256: String
    /// Its first 64 bytes (enough for an ELF header).
    package var head: [UInt8]
}

/// What a package holds, read without writing anything.
package struct PackageContents: Sendable {
    /// manifest.json's bytes.
    package var manifest: Data
    /// Every regular file by its path in the package (SHA256SUMS included).
    package var files: [String: PackageFile]
    /// Folders named by entries of their own.
    package var directories: Set<String>
    /// SHA256SUMS' bytes, which a signature signs.
    package var checksums = Data()
    /// SIGNATURE's bytes, when the package is signed.
    package var signature: Data?

    /// Bytes unpacked, all files together.
    package var totalBytes: Int64 { files.values.reduce(0) { $0 + $1.size } }
}

/// A plugin package: one file, `<id>-<version>.assist-plugin`, a gzip'd tar of the plugin's folder with
/// `manifest.json` first, then `SHA256SUMS` (one `<sha256>  <path>` line per other file, as `sha256sum`
/// writes them), then the library and an optional `share/` folder.
///
/// A package is hostile input. It is read twice: once to check it, writing nothing (every entry a plain file
/// or folder whose name stays inside the package, within the limits, every file's SHA-256 as listed), and
/// once to unpack it into a fresh folder, where each file is hashed again as it is written.
package enum PluginArchive {
    package static let manifestName = "manifest.json"
    package static let checksumsName = "SHA256SUMS"
    package static let fileExtension = "assist-plugin"

    // MARK: Checking

    /// Reads `url` through, writing nothing, and checks every rule above.
    package static func inspect(_ url: URL, limits: PackageLimits = .standard) throws(PackageProblem)
        -> PackageContents
    {
        var manifest: Data?
        var checksums: Data?
        var signature: Data?
        var files: [String: PackageFile] = [:]
        var directories: Set<String> = []
        try walk(url, limits: limits) { (entry: Entry) throws(PackageProblem) -> FileSink? in
            guard entry.isFile else {
                directories.insert(entry.path)
                return nil
            }
            let keep = [manifestName, checksumsName, PackageSignature.fileName].contains(entry.path)
            return FileSink(keepBytes: keep ? limits.textBytes : 0) { (sink: FileSink) throws(PackageProblem) in
                files[entry.path] = PackageFile(size: sink.size, sha256: sink.hex, head: sink.head)
                if entry.path == manifestName { manifest = sink.kept }
                if entry.path == checksumsName { checksums = sink.kept }
                if entry.path == PackageSignature.fileName { signature = sink.kept }
            }
        }
        guard let manifest else { throw .noManifest }
        guard let checksums else { throw .noChecksums }
        let listed = try parseChecksums(checksums)
        // SIGNATURE signs SHA256SUMS, so it cannot be listed there.
        for (path, file) in files.sorted(by: { $0.key < $1.key })
        where path != checksumsName && path != PackageSignature.fileName {
            guard let sum = listed[path] else { throw .unlisted(path) }
            guard sum == file.sha256 else { throw .checksumMismatch(path) }
        }
        if let absent = listed.keys.sorted().first(where: { files[$0] == nil }) { throw .missing(absent) }
        return PackageContents(
            manifest: manifest, files: files, directories: directories, checksums: checksums, signature: signature)
    }

    /// SHA256SUMS' lines: `<64 hex digits>  <path>` (or ` *<path>`, sha256sum's binary mark).
    static func parseChecksums(_ data: Data) throws(PackageProblem) -> [String: String] {
        var table: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.isEmpty {
            let text = String(line)
            let hex = String(text.prefix(64)).lowercased()
            let rest = text.dropFirst(64)
            guard hex.count == 64, hex.allSatisfy(\.isHexDigit), rest.hasPrefix(" ") else {
                throw .damaged("SHA256SUMS has a line that is not “<sha256>  <file>”")
            }
            var path = String(rest.dropFirst())
            if path.hasPrefix(" ") || path.hasPrefix("*") { path.removeFirst() }
            while path.hasPrefix("./") { path.removeFirst(2) }
            guard table[path] == nil else { throw .duplicate(path) }
            table[path] = hex
        }
        return table
    }

    // MARK: Unpacking

    /// Unpacks `url` into `folder` (which must be new and empty), expecting exactly `contents`: a file that
    /// differs from what was checked stops the unpacking. Folders are 0755, files 0644, `executable` 0755.
    package static func unpack(
        _ url: URL, into folder: URL, expecting contents: PackageContents, executable: String,
        limits: PackageLimits = .standard
    ) throws(PackageProblem) {
        var written: Set<String> = []
        try walk(url, limits: limits) { (entry: Entry) throws(PackageProblem) -> FileSink? in
            let target = folder.appendingPathComponent(entry.path)
            guard entry.isFile else {
                try makeFolder(target)
                return nil
            }
            guard let expected = contents.files[entry.path] else { throw .changed(entry.path) }
            try makeFolder(target.deletingLastPathComponent())
            let mode: mode_t = entry.path == executable ? 0o755 : 0o644
            let descriptor = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            guard descriptor >= 0 else {
                throw .cannotWrite("\(target.path): \(String(cString: strerror(errno)))")
            }
            return FileSink(
                keepBytes: 0,
                write: { (bytes: UnsafeRawBufferPointer) throws(PackageProblem) in
                    guard let base = bytes.baseAddress else { return }
                    var offset = 0
                    while offset < bytes.count {
                        let count = Glibc.write(descriptor, base + offset, bytes.count - offset)
                        if count < 0 && errno == EINTR { continue }
                        guard count > 0 else {
                            throw .cannotWrite("\(target.path): \(String(cString: strerror(errno)))")
                        }
                        offset += count
                    }
                },
                done: { (sink: FileSink) throws(PackageProblem) in
                    let synced = fsync(descriptor) == 0
                    close(descriptor)
                    guard synced else { throw .cannotWrite("\(target.path) could not be saved") }
                    guard sink.hex == expected.sha256, sink.size == expected.size else { throw .changed(entry.path) }
                    _ = chmod(target.path, mode)
                    written.insert(entry.path)
                },
                failed: { close(descriptor) })
        }
        if let absent = contents.files.keys.sorted().first(where: { !written.contains($0) }) {
            throw .changed(absent)
        }
    }

    private static func makeFolder(_ url: URL) throws(PackageProblem) {
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            throw .cannotWrite("\(url.path): \(error.localizedDescription)")
        }
    }

    // MARK: Packing

    /// Writes a package of `files` (path in the package → file on disk) to `output`, through a temporary
    /// file beside it: manifest.json first, then SHA256SUMS of every other file, then (with `signer`) SIGNATURE,
    /// then the rest by name.
    /// `executable` is stored 0755, everything else 0644; owners and times are fixed, so the same input
    /// always gives the same package.
    package static func pack(files: [String: URL], executable: String, to output: URL, signer: SigningKey? = nil)
        throws(PackageProblem)
    {
        var sums = ""
        for (path, source) in files.sorted(by: { $0.key < $1.key }) {
            guard let hex = SHA256Digest.hex(ofFileAt: source) else {
                throw .cannotWrite("\(source.path) cannot be read")
            }
            sums += "\(hex)  \(path)\n"
        }
        let lib = try library()
        let temporary = output.deletingLastPathComponent()
            .appendingPathComponent(".\(output.lastPathComponent).\(getpid()).partial")
        guard let archive = lib.write_new() else { throw .cannotWrite("libarchive could not start") }
        defer { _ = lib.write_free(archive) }
        guard lib.write_add_filter_gzip(archive) == ARCHIVE_OK,
            lib.write_set_format_pax_restricted(archive) == ARCHIVE_OK
        else { throw .cannotWrite(errorText(archive)) }
        // Without the time in the gzip header: the same input gives the same package.
        _ = lib.write_set_options(archive, "gzip:!timestamp")
        guard lib.write_open_filename(archive, temporary.path) == ARCHIVE_OK else {
            throw .cannotWrite("\(temporary.path): \(errorText(archive))")
        }
        var ordered: [(String, Data?, URL?)] = []
        if let manifest = files[manifestName] { ordered.append((manifestName, nil, manifest)) }
        ordered.append((checksumsName, Data(sums.utf8), nil))
        if let signer {
            guard let signature = signer.sign(checksums: Data(sums.utf8)) else {
                throw .cannotWrite("OpenSSL could not sign the package")
            }
            ordered.append((PackageSignature.fileName, signature.text, nil))
        }
        for (path, source) in files.sorted(by: { $0.key < $1.key }) where path != manifestName {
            ordered.append((path, nil, source))
        }
        do {
            for (path, bytes, source) in ordered {
                let data: Data
                if let bytes {
                    data = bytes
                } else if let source, let read = try? Data(contentsOf: source) {
                    data = read
                } else {
                    throw PackageProblem.cannotWrite("\(path) cannot be read")
                }
                try add(path, data, mode: path == executable ? 0o755 : 0o644, to: archive, lib: lib)
            }
            guard lib.write_close(archive) == ARCHIVE_OK else {
                throw PackageProblem.cannotWrite("\(temporary.path): \(errorText(archive))")
            }
            guard rename(temporary.path, output.path) == 0 else {
                throw PackageProblem.cannotWrite("\(output.path): \(String(cString: strerror(errno)))")
            }
        } catch let problem as PackageProblem {
            unlink(temporary.path)
            throw problem
        } catch {
            unlink(temporary.path)
            throw .cannotWrite("\(error)")
        }
    }

    private static func add(
        _ path: String, _ data: Data, mode: mode_t, to archive: OpaquePointer, lib: assist_archive_api
    ) throws {
        guard let entry = lib.entry_new() else { throw PackageProblem.cannotWrite("libarchive could not start") }
        defer { lib.entry_free(entry) }
        lib.entry_set_pathname(entry, path)
        lib.entry_set_size(entry, la_int64_t(data.count))
        lib.entry_set_filetype(entry, FileType.regular)
        lib.entry_set_perm(entry, mode)
        lib.entry_set_mtime(entry, time_t(sourceDateEpoch), 0)
        lib.entry_set_uid(entry, 0)
        lib.entry_set_gid(entry, 0)
        guard lib.write_header(archive, entry) == ARCHIVE_OK else {
            throw PackageProblem.cannotWrite("\(path): \(errorText(archive))")
        }
        let wrote = data.withUnsafeBytes { lib.write_data(archive, $0.baseAddress, $0.count) }
        guard wrote == data.count else { throw PackageProblem.cannotWrite("\(path): \(errorText(archive))") }
    }

    /// `SOURCE_DATE_EPOCH` when set (reproducible builds), else 0.
    private static var sourceDateEpoch: Int {
        Int(ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"] ?? "") ?? 0
    }

    // MARK: Reading entries

    /// The file-type bits of an entry's mode (the POSIX values tar and zip both use).
    enum FileType {
        static let mask: UInt32 = 0o170000
        static let regular: UInt32 = 0o100000
        static let directory: UInt32 = 0o040000
        static let link: UInt32 = 0o120000
    }

    /// One entry as `walk` checked it.
    struct Entry {
        var path: String
        var isFile: Bool
    }

    /// Where a file's bytes go as they are read: hashed, counted, the first 64 kept, optionally all of them
    /// kept (up to `keepBytes`) or written on.
    final class FileSink {
        var size: Int64 = 0
        var head: [UInt8] = []
        var kept = Data()
        private var digest: SHA256Digest? = SHA256Digest()
        private(set) var hex = ""
        let keepBytes: Int
        let write: (UnsafeRawBufferPointer) throws(PackageProblem) -> Void
        let done: (FileSink) throws(PackageProblem) -> Void
        let failed: () -> Void

        init(
            keepBytes: Int, write: @escaping (UnsafeRawBufferPointer) throws(PackageProblem) -> Void = { _ in },
            done: @escaping (FileSink) throws(PackageProblem) -> Void, failed: @escaping () -> Void = {}
        ) {
            self.keepBytes = keepBytes
            self.write = write
            self.done = done
            self.failed = failed
        }

        func take(_ bytes: UnsafeRawBufferPointer, path: String) throws(PackageProblem) {
            size += Int64(bytes.count)
            if head.count < 64 { head += bytes.prefix(64 - head.count) }
            if keepBytes > 0 {
                guard kept.count + bytes.count <= keepBytes else { throw .tooBig(Int64(keepBytes)) }
                kept.append(contentsOf: bytes)
            }
            digest?.update(data: Data(bytes))
            try write(bytes)
        }

        func finish() throws(PackageProblem) {
            guard let digest = digest.take() else { return }
            hex = SHA256Digest.hexadecimal(digest.finalize())
            try done(self)
        }
    }

    /// Reads every entry of `url` in order, refusing what a package may not hold before its bytes are read,
    /// and hands each file's bytes to the sink `visit` returns for it.
    static func walk(
        _ url: URL, limits: PackageLimits, visit: (Entry) throws(PackageProblem) -> FileSink?
    ) throws(PackageProblem) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw .folder(url.path)
        }
        let lib = try library()
        guard let archive = lib.read_new() else { throw .unreadable("libarchive could not start") }
        defer { _ = lib.read_free(archive) }
        // gzip, xz or none; tar or zip. No filter that runs an outside program.
        // xz only where libarchive does it itself (ARCHIVE_WARN would mean an outside xz program).
        _ = lib.read_support_filter_xz(archive)
        let ready = [
            lib.read_support_filter_gzip(archive), lib.read_support_format_tar(archive),
            lib.read_support_format_zip(archive),
        ]
        guard ready.allSatisfy({ $0 == ARCHIVE_OK }) else { throw .unreadable(errorText(archive)) }
        // A compressed stream or an archive format was recognised: what fails after that is damage, not a
        // file of another kind.
        func failure() -> PackageProblem {
            looksLikeArchive(url) ? .damaged(errorText(archive)) : .unreadable(errorText(archive))
        }
        guard lib.read_open_filename(archive, url.path, 64 << 10) == ARCHIVE_OK else {
            if !FileManager.default.isReadableFile(atPath: url.path) {
                throw .unreadable("\(url.path) cannot be opened")
            }
            throw failure()
        }
        var seen: Set<String> = []
        var total: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            var header: OpaquePointer?
            let status = lib.read_next_header(archive, &header)
            if status == ARCHIVE_EOF { break }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let header else {
                throw seen.isEmpty ? failure() : .damaged(errorText(archive))
            }
            let raw = lib.entry_pathname(header).map { String(cString: $0) } ?? ""
            let path: String
            switch clean(raw, limits: limits) {
            case .success(let cleaned): path = cleaned
            case .failure(let fault): throw .unsafePath(raw, fault.fault)
            }
            if path.isEmpty { continue }  // the folder itself ("./")
            if lib.entry_hardlink(header) != nil || lib.entry_symlink(header) != nil {
                throw .link(path)
            }
            let type = lib.entry_filetype(header) & FileType.mask
            if type == FileType.link { throw .link(path) }
            guard type == FileType.regular || type == FileType.directory else { throw .special(path) }
            guard seen.insert(path).inserted else { throw .duplicate(path) }
            guard seen.count <= limits.entries else { throw .tooManyEntries(limits.entries) }
            guard let sink = try visit(Entry(path: path, isFile: type == FileType.regular)) else { continue }
            do {
                while true {
                    let count = lib.read_data(archive, buffer.baseAddress, buffer.count)
                    if count == 0 { break }
                    guard count > 0 else { throw PackageProblem.damaged(errorText(archive)) }
                    total += Int64(count)
                    guard total <= limits.bytes else { throw PackageProblem.tooBig(limits.bytes) }
                    try sink.take(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), path: path)
                }
            } catch let problem as PackageProblem {
                sink.failed()
                throw problem
            } catch {
                sink.failed()
                throw .damaged("\(error)")
            }
            try sink.finish()
        }
        guard !seen.isEmpty else { throw .unreadable("it is empty") }
    }

    /// `raw` as a relative path inside the package ("" for the package's own folder), or nil when it could
    /// leave it: absolute, `..`, empty parts, control characters, backslashes, too long or too deep.
    /// A `PathFault` as an `Error`, for `Result`.
    struct Refused: Error, Equatable {
        let fault: PathFault
    }

    /// The entry's name inside the plugin's folder ("" for the folder itself), or why it cannot be one.
    static func clean(_ raw: String, limits: PackageLimits = .standard) -> Result<String, Refused> {
        var name = raw
        while name.hasPrefix("./") { name.removeFirst(2) }
        while name.hasSuffix("/") { name.removeLast() }
        if name.isEmpty || name == "." { return raw.hasPrefix("/") ? .failure(Refused(fault: .outside)) : .success("") }
        guard !name.hasPrefix("/") else { return .failure(Refused(fault: .outside)) }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0 == ".." }) { return .failure(Refused(fault: .outside)) }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return .failure(Refused(fault: .controlCharacter))
        }
        if name.contains("\\") { return .failure(Refused(fault: .backslash)) }
        guard name.count <= limits.pathLength else {
            return .failure(Refused(fault: .tooLong(name.count, limit: limits.pathLength)))
        }
        guard parts.count <= limits.depth else {
            return .failure(Refused(fault: .tooDeep(parts.count, limit: limits.depth)))
        }
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." }) else { return .failure(Refused(fault: .emptyFolder)) }
        return .success(name)
    }

    /// True when `url` begins as gzip, xz, zip or tar data do.
    static func looksLikeArchive(_ url: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        let bytes = [UInt8]((try? handle.read(upToCount: 512)) ?? Data())
        let magics: [[UInt8]] = [[0x1F, 0x8B], [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], [0x50, 0x4B, 0x03, 0x04]]
        if magics.contains(where: { bytes.starts(with: $0) }) { return true }
        return bytes.count >= 262 && Array(bytes[257..<262]) == Array("ustar".utf8)
    }

    private static func errorText(_ archive: OpaquePointer) -> String {
        guard let lib = assist_archive() else { return "unknown error" }
        return lib.pointee.error_string(archive).map { String(cString: $0) } ?? "unknown error"
    }

    /// libarchive's table, opened on first use.
    private static func library() throws(PackageProblem) -> assist_archive_api {
        guard let table = assist_archive() else {
            let why = assist_archive_load_error().map { String(cString: $0) } ?? "unknown"
            throw .unreadable("libarchive cannot be opened: \(why); install Debian's libarchive13")
        }
        return table.pointee
    }
}
