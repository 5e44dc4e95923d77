import Digest
import Foundation
import PluginKit

#if canImport(Glibc)
    import Glibc
#endif

/// Turns a path into at most one `ios_photos` row (spec §3.4–3.15, §3.9): content sniffed, the file hashed
/// only when its size or mtime changed since the index last saw it, edits and renames never counted as new.
public final class MediaIndexer {
    private let store: SensorStore
    public var includeAudio: Bool
    /// The sensor's label, applied to rows written from now on.
    public var label: String
    /// Pictures recorded from now on are owed recognition (`performRecognition`).
    public var recognition = false
    /// The last pause (modification times in ns): a file not yet known, modified within it, was taken while
    /// the sensor was paused and is indexed without a row, even when found after the pause (the host was off).
    public var pausedWindow: ClosedRange<Int64>?
    private let deviceID: String
    private let now: () -> Date

    public enum Outcome: Equatable, Sendable {
        /// A new row.
        case recorded(SensorStore.PhotoRow)
        /// Indexed without a row: the first start's baseline, or an edit of a file already recorded.
        case indexed
        /// Size and mtime as the index knows them: nothing read.
        case unchanged
        /// Not media the sensor records (name, content, empty, not a regular file).
        case ignored
        /// Gone before it could be read.
        case vanished
        /// Changing while read (a writer that closes and reopens), or its header not readable yet: try again
        /// in 2 s, at most 3 times (the last try records what it can).
        case busy(String)
    }

    public init(store: SensorStore, includeAudio: Bool, label: String, now: @escaping () -> Date = Date.init)
        throws(PluginStatus)
    {
        self.store = store
        self.includeAudio = includeAudio
        self.label = label
        self.deviceID = try store.deviceID()
        self.now = now
    }

    /// Size and modification time (ns) without following links; nil when not a regular file.
    static func stamp(_ path: String) -> (size: Int64, mtimeNs: Int64)? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return (Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// Processes `path`; with `baseline`, a file not yet known is indexed without a row. Unless it is the
    /// `lastTry`, a header that cannot be read yet gives `.busy`; on the last try the row gets 0×0, duration 0
    /// and the mtime (spec §7).
    public func process(_ path: String, baseline: Bool = false, lastTry: Bool = true) throws(PluginStatus)
        -> Outcome
    {
        let name = (path as NSString).lastPathComponent
        guard MediaSniffer.isWorthLooking(atName: name) else { return .ignored }
        guard let before = Self.stamp(path) else {
            return FileManager.default.fileExists(atPath: path) ? .ignored : .vanished
        }
        guard before.size > 0 else { return .ignored }
        let known = try store.seen(path)
        if let known, known.size == before.size, known.mtimeNs == before.mtimeNs { return .unchanged }
        let baseline = baseline || known == nil && pausedWindow?.contains(before.mtimeNs) == true
        guard let handle = FileHandle(forReadingAtPath: path) else { return .vanished }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: MediaSniffer.headerBytes)) ?? Data()
        guard let sniffed = MediaSniffer.classify(name: name, header: header, includeAudio: true) else {
            return .ignored
        }
        var hasher = SHA256Digest()
        hasher.update(data: header)
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        let digest = SHA256Digest.hexadecimal(hasher.finalize())
        guard let after = Self.stamp(path), after == before else { return .busy(path) }
        // Details only for a row owed; an Ogg file is a video when it has a video stream, else a sound.
        let owed = !baseline && known == nil
        let details = owed || sniffed == .ogg ? MediaDetails.read(path, format: sniffed) : MediaDetails()
        let kind: MediaKind = sniffed == .ogg && details.hasVideo ? .video : sniffed.kind
        if kind == .audio && !includeAudio { return .ignored }
        if owed && !details.readable && !lastTry { return .busy(path) }
        var file = SensorStore.SeenFile(
            path: path, size: after.size, mtimeNs: after.mtimeNs, sha256: digest, mediaType: kind.rawValue,
            recorded: true, recognitionDone: false)
        // `recorded` means no row is owed: a baseline file or an edit owes none, and no recognition either.
        file.recognitionDone = !(recognition && kind == .image)
        if baseline || known != nil {
            file.recognitionDone = known?.recognitionDone ?? true
            try store.index(file)
            return .indexed
        }
        let time = now()
        let row = SensorStore.PhotoRow(
            timestamp: Int64(time.timeIntervalSince1970 * 1000), deviceId: deviceID, label: label,
            localIdentifier: "\(path)#sha256:\(digest)", mediaType: kind.rawValue, mediaWidth: details.width,
            mediaHeight: details.height, creationTimestamp: details.takenMs ?? after.mtimeNs / 1_000_000,
            duration: details.duration,
            timezone: TimeZone.current.secondsFromGMT(for: time) / 3600)
        var saved = row
        saved.id = try store.record(row, file: file)
        return .recorded(saved)
    }

    /// Walks `folders` (and below, when `recursive`, never through links) and processes every file; index
    /// entries under them whose files are gone are forgotten. Stat only for files the index knows unchanged.
    public func catchUp(_ folders: [String], recursive: Bool, baseline: Bool) throws(PluginStatus) -> [Outcome] {
        var outcomes: [Outcome] = []
        var present = Set<String>()
        var stack = folders
        while let folder = stack.popLast() {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR where recursive: stack.append(path)
                case S_IFREG:
                    present.insert(path)
                    outcomes.append(try process(path, baseline: baseline))
                default: break
                }
            }
        }
        let roots = folders.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        let gone = try store.allSeen().map(\.path).filter { path in
            roots.contains { path.hasPrefix($0) } && !present.contains(path)
        }
        try store.forget(gone)
        return outcomes
    }

    /// Applies the watcher's settled changes: arrivals are processed; a rename of something the index knows
    /// moves its entry (not new media), a rename of something it never recorded (a `.part` download renamed
    /// to its final name) is processed as an arrival; an overflow becomes a catch-up of `folders`.
    /// With `baseline` (the sensor is paused) what arrives is indexed without a row: never recorded.
    public func apply(_ changes: [FolderChange], folders: [String], recursive: Bool, baseline: Bool = false)
        throws(PluginStatus) -> [Outcome]
    {
        var outcomes: [Outcome] = []
        for change in changes {
            switch change {
            case .arrived(let path):
                outcomes.append(try process(path, baseline: baseline, lastTry: false))
            case .renamed(let from, let to):
                let knownBelow = try store.allSeen().contains { $0.path.hasPrefix(from + "/") }
                if try store.seen(from) != nil || knownBelow {
                    try store.move(from: from, to: to)
                } else if Self.stamp(to) != nil {
                    outcomes.append(try process(to, baseline: baseline, lastTry: false))
                } else {
                    outcomes += try catchUp([to], recursive: recursive, baseline: baseline)
                }
            case .overflow:
                outcomes += try catchUp(folders, recursive: recursive, baseline: baseline)
            case .folderGone:
                break
            }
        }
        return outcomes
    }
}
