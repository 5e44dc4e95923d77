import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What happened in the watched folders, settled (photo-sensor spec §3.2–3.7): a path is reported once its
/// events have been quiet for the debounce time.
public enum FolderChange: Equatable, Sendable {
    /// A file was written and closed, or moved in from outside the watched tree: possibly new media.
    case arrived(String)
    /// A file or folder moved within the watched tree: not new media, the index follows it.
    case renamed(from: String, to: String)
    /// The kernel's queue overflowed: changes were lost, a catch-up scan must find them.
    case overflow
    /// A watched folder was deleted or moved away.
    case folderGone(String)
}

/// inotify over one or more folders (and, with `recursive`, every folder below them), on a thread of its own.
/// Raw events become `FolderChange`s: writes and moves in are debounced per path, rename pairs are matched
/// by cookie, new subfolders are watched at once and scanned (files may land before the watch exists), and
/// symbolic links are never followed, so a link loop cannot trap the walk.
public final class FolderWatcher: @unchecked Sendable {  // because: every mutable member is guarded by `lock`
    public let folders: [String]
    public let recursive: Bool
    public let debounceSeconds: Double
    private let handler: @Sendable ([FolderChange]) -> Void
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var paths: [Int32: String] = [:]
    private var pending: [String: Double] = [:]
    private var movedFrom: [UInt32: (path: String, at: Double, isFolder: Bool)] = [:]
    private var queued: [FolderChange] = []
    private var running = false
    private var stopPipe: [Int32] = [-1, -1]
    private var _unwatched: [String: String] = [:]
    /// Seconds between tries to watch the folders that could not be (spec §7: 60), and between catch-up
    /// scans while the watch limit leaves folders unwatched (300).
    public let retrySeconds: Double
    public let rescanSeconds: Double
    /// For tests: acts as if the kernel's watch limit allowed only this many watches.
    private let maxWatches: Int?
    private var nextRetry = 0.0
    private var nextRescan = 0.0

    /// Watches `folders`; `handler` gets settled changes in batches on the watcher's thread.
    public init(
        folders: [String], recursive: Bool, debounceSeconds: Double = 1, retrySeconds: Double = 60,
        rescanSeconds: Double = 300, maxWatches: Int? = nil, handler: @escaping @Sendable ([FolderChange]) -> Void
    ) {
        self.maxWatches = maxWatches
        self.folders = folders
        self.recursive = recursive
        self.debounceSeconds = debounceSeconds
        self.retrySeconds = retrySeconds
        self.rescanSeconds = rescanSeconds
        self.handler = handler
    }

    /// Folders that could not be watched, with why: missing, unreadable, deleted or moved while watched, or
    /// the user's watch limit reached. Any thread.
    public var unwatched: [String: String] { lock.withLock { _unwatched } }

    /// Why the inotify watch limit is named in status and log.
    public static let limitReason = "the inotify watch limit (fs.inotify.max_user_watches) is reached"

    deinit { stop() }

    /// Opens inotify, adds the watches and starts the thread. Throws when inotify itself is unavailable.
    public func start() throws {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(fd)
            throw POSIXError(.EIO)
        }
        lock.withLock {
            descriptor = fd
            stopPipe = ends
            running = true
        }
        for folder in folders { addWatch(folder, scanNew: false) }
        let thread = Thread { [self] in loop() }
        thread.name = "photo-sensor-watch"
        thread.start()
    }

    /// Stops the thread and closes inotify. Any thread.
    /// The wake byte is written under the lock, which the thread also holds to close the pipe: a descriptor
    /// closed meanwhile (and perhaps reused by another file) is never written to.
    public func stop() {
        lock.withLock {
            guard running else { return }
            running = false
            guard descriptor >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(stopPipe[1], &byte, 1)
        }
    }

    /// The folders being watched now.
    public var watchedFolders: [String] { lock.withLock { Array(paths.values).sorted() } }

    // MARK: Watches

    private static let fileMask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE)
    private static let folderMask = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)

    /// Watches `folder` (and below it, when recursive); with `scanNew`, files already inside are reported as
    /// arrived, for a folder that appeared while the sensor ran.
    private func addWatch(_ folder: String, scanNew: Bool) {
        let (fd, full) = lock.withLock { (descriptor, maxWatches.map { paths.count >= $0 } ?? false) }
        let wd = full ? -1 : inotify_add_watch(fd, folder, Self.fileMask | Self.folderMask)
        if full { errno = ENOSPC }
        if wd < 0 {
            let reason = errno == ENOSPC ? Self.limitReason : String(cString: strerror(errno))
            lock.withLock { _unwatched[folder] = reason }
            return
        }
        lock.withLock {
            paths[wd] = folder
            _unwatched[folder] = nil
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names.sorted() {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR && recursive {
                addWatch(path, scanNew: scanNew)
            } else if type == S_IFREG && scanNew {
                touch(path)
            }
        }
    }

    private func touch(_ path: String) {
        lock.withLock { pending[path] = ProcessInfo.processInfo.systemUptime }
    }

    // MARK: The thread

    private func loop() {
        let (fd, wake) = lock.withLock { (descriptor, stopPipe[0]) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while lock.withLock({ running }) {
            var polls = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let timeout = nextTimeoutMilliseconds()
            _ = poll(&polls, 2, timeout)
            if polls[1].revents != 0 { break }
            if polls[0].revents & Int16(POLLIN) != 0 {
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    for event in InotifyEvents.parse(buffer.prefix(count)) { handle(event) }
                }
            }
            retryUnwatched()
            flushSettled()
        }
        lock.withLock {
            close(descriptor)
            close(stopPipe[0])
            close(stopPipe[1])
            descriptor = -1
            paths = [:]
        }
    }

    /// Every `retrySeconds`, the folders not watched are tried again (what they hold is reported as arrived, so
    /// the index decides what is new); every `rescanSeconds` while the watch limit leaves some out, a catch-up
    /// (as after an overflow) covers them. On the watcher's thread.
    private func retryUnwatched() {
        let now = ProcessInfo.processInfo.systemUptime
        let (retry, rescan): ([String], Bool) = lock.withLock {
            guard !_unwatched.isEmpty else {
                nextRetry = 0
                nextRescan = 0
                return ([], false)
            }
            if nextRetry == 0 { nextRetry = now + retrySeconds }
            if nextRescan == 0 { nextRescan = now + rescanSeconds }
            var retry: [String] = []
            if now >= nextRetry {
                retry = _unwatched.keys.sorted()
                nextRetry = now + retrySeconds
            }
            let limited = _unwatched.values.contains(Self.limitReason)
            let rescan = limited && now >= nextRescan
            if rescan { nextRescan = now + rescanSeconds }
            return (retry, rescan)
        }
        for folder in retry {
            var info = stat()
            guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            addWatch(folder, scanNew: true)
        }
        if rescan { lock.withLock { queued.append(.overflow) } }
    }

    /// Milliseconds until the next pending path settles or unwatched folders are tried again, or -1 to wait
    /// for events only.
    private func nextTimeoutMilliseconds() -> Int32 {
        lock.withLock {
            var deadlines = pending.values.map { $0 + debounceSeconds } + movedFrom.values.map { $0.at + 0.5 }
            if !_unwatched.isEmpty {
                let now = ProcessInfo.processInfo.systemUptime
                deadlines.append(nextRetry == 0 ? now + retrySeconds : nextRetry)
                if _unwatched.values.contains(Self.limitReason) {
                    deadlines.append(nextRescan == 0 ? now + rescanSeconds : nextRescan)
                }
            }
            guard let first = deadlines.min() else { return queued.isEmpty ? -1 : 0 }
            return Int32(max(0, (first - ProcessInfo.processInfo.systemUptime) * 1000).rounded(.up))
        }
    }

    private func handle(_ event: InotifyEvents.Event) {
        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            lock.withLock { queued.append(.overflow) }
            return
        }
        guard let folder = lock.withLock({ paths[event.wd] }) else { return }
        let isFolder = event.mask & UInt32(IN_ISDIR) != 0
        let path = event.name.isEmpty ? folder : folder + "/" + event.name
        let now = ProcessInfo.processInfo.systemUptime
        if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
            lock.withLock {
                paths[event.wd] = nil
                if folders.contains(folder) {
                    queued.append(.folderGone(folder))
                    _unwatched[folder] = "it was deleted or moved"
                }
            }
            return
        }
        if event.mask & UInt32(IN_IGNORED) != 0 {
            lock.withLock { _ = paths.removeValue(forKey: event.wd) }
            return
        }
        if event.mask & UInt32(IN_MOVED_FROM) != 0 {
            lock.withLock {
                movedFrom[event.cookie] = (path, now, isFolder)
                pending[path] = nil
            }
            return
        }
        if event.mask & UInt32(IN_MOVED_TO) != 0 {
            let source = lock.withLock { movedFrom.removeValue(forKey: event.cookie) }
            if let source {
                lock.withLock { queued.append(.renamed(from: source.path, to: path)) }
                if isFolder && recursive { retarget(from: source.path, to: path) }
                return
            }
            if isFolder {
                if recursive { addWatch(path, scanNew: true) }
            } else {
                touch(path)
            }
            return
        }
        if event.mask & UInt32(IN_CREATE) != 0 {
            if isFolder && recursive { addWatch(path, scanNew: true) }
            return
        }
        if event.mask & UInt32(IN_CLOSE_WRITE) != 0, !isFolder { touch(path) }
    }

    /// A watched folder renamed inside the tree: its watches keep their descriptors, only the paths change.
    private func retarget(from old: String, to new: String) {
        lock.withLock {
            for (wd, path) in paths where path == old || path.hasPrefix(old + "/") {
                paths[wd] = new + path.dropFirst(old.count)
            }
        }
    }

    /// Hands over the paths quiet for the debounce time, and moves out of the tree (a MOVED_FROM whose pair
    /// never came) are forgotten.
    private func flushSettled() {
        let now = ProcessInfo.processInfo.systemUptime
        let batch: [FolderChange] = lock.withLock {
            var batch = queued
            queued = []
            let settled = pending.filter { now - $0.value >= debounceSeconds }.keys.sorted()
            for path in settled {
                pending[path] = nil
                batch.append(.arrived(path))
            }
            movedFrom = movedFrom.filter { now - $0.value.at < 0.5 }
            return batch
        }
        if !batch.isEmpty { handler(batch) }
    }
}

/// The kernel's inotify records: `struct inotify_event` (wd, mask, cookie, len, then `len` bytes of name,
/// NUL-padded), read from bytes without trusting `len`.
public enum InotifyEvents {
    /// One record, as read (only `parse` makes them).
    public struct Event: Equatable, Sendable {
        public let wd: Int32
        public let mask: UInt32
        public let cookie: UInt32
        public let name: String
    }

    public static func parse(_ bytes: some Collection<UInt8>) -> [Event] {
        let data = Array(bytes)
        var events: [Event] = []
        var offset = 0
        func u32(_ at: Int) -> UInt32 {
            UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24
        }
        while offset + 16 <= data.count {
            let length = Int(u32(offset + 12))
            guard length <= data.count - offset - 16 else { break }
            let nameBytes = data[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
            events.append(
                Event(
                    wd: Int32(bitPattern: u32(offset)), mask: u32(offset + 4), cookie: u32(offset + 8),
                    name: String(decoding: nameBytes, as: UTF8.self)))
            offset += 16 + length
        }
        return events
    }
}
