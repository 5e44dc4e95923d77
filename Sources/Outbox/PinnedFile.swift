import Foundation

/// A file an upload names, held to the file it was when the job was queued (docs/security.md, "What the
/// services refuse"): opened without following a link, a plain file, known by its device and inode. A file that
/// was replaced since (by a link to the user's key, say) is not that file, and is not sent.
package enum PinnedFile {
    /// Opens `path` without following a link; the descriptor of a plain file, or why not.
    package static func open(_ path: String) -> Result<Int32, PinError> {
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            return .failure(errno == ELOOP ? .link : .unreadable(String(cString: strerror(errno))))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return .failure(.notAFile)
        }
        return .success(descriptor)
    }

    /// "dev:ino:size:mtime" of an open file: the same file, unchanged since (an inode number alone is given
    /// again to the next file made).
    package static func identity(of descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// The identity of the plain file at `path`, opened without following a link.
    package static func identity(_ path: String) -> Result<String, PinError> {
        switch open(path) {
        case .failure(let error): return .failure(error)
        case .success(let descriptor):
            defer { close(descriptor) }
            guard let identity = identity(of: descriptor) else { return .failure(.notAFile) }
            return .success(identity)
        }
    }

    /// `path` with every link resolved (itself when it cannot be).
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Why a file part is not sent.
    package enum PinError: Error, Equatable, Sendable {
        case link, notAFile, unreadable(String), changed, notPinned, outside

        package var reason: String {
            switch self {
            case .link: "it is a link"
            case .notAFile: "it is not a plain file"
            case .unreadable(let why): why
            case .changed: "it was replaced or changed after it was queued"
            case .notPinned: "it was not queued by Assist's outbox service"
            case .outside: "it is not in its feature's own folders"
            }
        }
    }

    /// nil when every file part of `request` is `owner`'s own (under `roots`, the owner's data and cache
    /// folders) and still the file it was queued as; else why not. A job row that names another feature's
    /// files, or a file that changed into another, is never sent.
    package static func problem(in request: OutboxRequest, roots: [URL]) -> String? {
        guard case .multipart(_, let parts) = request.body else { return nil }
        for part in parts {
            guard let path = part.path else { continue }
            let real = realPath(path)
            guard roots.contains(where: { real.hasPrefix(realPath($0.path) + "/") }) else {
                return "\(path): \(PinError.outside.reason)"
            }
            switch identity(path) {
            case .failure(let error): return "\(path): \(error.reason)"
            // A job queued before files were pinned: its own plain file, reached through no link, is sent.
            case .success(let now) where part.identity != nil && now != part.identity:
                return "\(path): \(PinError.changed.reason)"
            case .success: continue
            }
        }
        return nil
    }
}
