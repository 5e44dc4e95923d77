import Foundation
import HostTesting
import PhotoSensorCore
import PluginHost
import PluginKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The index and the rows in the plugin's real SQLite file, through the host's storage service: one row per
/// new media file, none for edits, renames or the first start's baseline, and no hashing of unchanged files.
@Suite("photo-sensor index and rows")
struct MediaIndexerTests {
    let folder: TemporaryDirectory
    let watched: TemporaryDirectory
    let host: TestHost
    let kit: PluginHostHandle

    init() throws {
        folder = try TemporaryDirectory("assist-photo-index")
        watched = try TemporaryDirectory("assist-photo-watched")
        let manifestURL = folder.path("manifest.json")
        try JSONSerialization.data(withJSONObject: CPluginBuilder.manifest(id: "assist.photo-sensor"))
            .write(to: manifestURL)
        host = try TestHost(pluginDirectories: [])
        let context = PluginContext(
            manifest: try PluginManifest.load(from: manifestURL), pluginDirectory: folder.url, servedBy: host.services)
        kit = PluginHostHandle(UnsafePointer(context.host))
        contexts.append(context)
    }

    /// Keeps the context (and its host table) alive as long as the test.
    private var contexts: [PluginContext] = []

    func indexer() throws -> MediaIndexer {
        try MediaIndexer(store: SensorStore(host: kit), includeAudio: false, label: "study-a")
    }

    func jpeg(_ name: String, color: String = "red") throws -> String {
        let path = watched.path(name).path
        let made = try ProcessRunner.run("/usr/bin/convert", ["-size", "16x12", "xc:\(color)", "jpg:" + path])
        try #require(made.status == 0)
        return path
    }

    @Test func aNewPictureIsOneRowNamedByPathAndSHA256() throws {
        let indexer = try indexer()
        let path = try jpeg("a.jpg")
        guard case .recorded(let row) = try indexer.process(path) else {
            Issue.record("not recorded")
            return
        }
        let sum = try ProcessRunner.run("/usr/bin/sha256sum", [path]).standardOutput.prefix(64)
        #expect(row.localIdentifier == "\(path)#sha256:\(sum)")
        #expect(row.mediaType == 1 && row.label == "study-a" && row.id == 1)
        #expect(row.deviceId.count == 36)
        #expect(try indexer.process(path) == .unchanged)
        #expect(try SensorStore(host: kit).photoCount() == 1)
    }

    @Test func unchangedSizeAndMtimeAreNotReadAgain() throws {
        let indexer = try indexer()
        let path = try jpeg("b.jpg")
        _ = try indexer.process(path)
        // Same size, same mtime, other bytes: the index does not look (a stat is all it does).
        var before = stat()
        #expect(stat(path, &before) == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 3] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0, "the mtime is put back to the nanosecond")
        #expect(try indexer.process(path) == .unchanged)
        // A real edit (new mtime) is indexed again but adds no row.
        Thread.sleep(forTimeInterval: 0.01)
        _ = try jpeg("b.jpg", color: "blue")
        #expect(try indexer.process(path) == .indexed)
        #expect(try SensorStore(host: kit).photoCount() == 1)
    }

    @Test func theFirstStartIsABaselineAndLaterArrivalsAreRows() throws {
        let indexer = try indexer()
        let old = try jpeg("old.jpg")
        try FileManager.default.createDirectory(at: watched.path("sub"), withIntermediateDirectories: true)
        let deep = try jpeg("sub/deep.png")
        let baseline = try indexer.catchUp([watched.url.path], recursive: true, baseline: true)
        #expect(baseline == [.indexed, .indexed])
        #expect(try SensorStore(host: kit).photoCount() == 0)
        // Added while the sensor was stopped, then a catch-up: only the new file is a row.
        let new = try jpeg("new.jpg", color: "green")
        try FileManager.default.removeItem(atPath: deep)
        let later = try indexer.catchUp([watched.url.path], recursive: true, baseline: false)
        #expect(later.filter { if case .recorded = $0 { true } else { false } }.count == 1)
        #expect(later.contains(.unchanged))
        let store = try SensorStore(host: kit)
        #expect(try store.photos().map(\.localIdentifier).allSatisfy { $0.hasPrefix(new + "#sha256:") })
        #expect(try store.seen(deep) == nil, "a gone file leaves the index")
        #expect(try store.seen(old)?.recorded == true)
    }

    @Test func renamesAreNotNewButAPartDownloadRenamedIs() throws {
        let indexer = try indexer()
        let first = try jpeg("first.jpg")
        _ = try indexer.process(first)
        let moved = watched.path("moved.jpg").path
        try FileManager.default.moveItem(atPath: first, toPath: moved)
        #expect(
            try indexer.apply([.renamed(from: first, to: moved)], folders: [watched.url.path], recursive: false).isEmpty
        )
        #expect(try SensorStore(host: kit).seen(moved) != nil)
        let part = try jpeg("download.jpg.part", color: "yellow")
        #expect(try indexer.process(part) == .ignored, "a partial name is never looked at")
        let final = watched.path("download.jpg").path
        try FileManager.default.moveItem(atPath: part, toPath: final)
        let outcomes = try indexer.apply(
            [.renamed(from: part, to: final)], folders: [watched.url.path], recursive: false)
        #expect(outcomes.count == 1 && outcomes.first != .indexed)
        #expect(try SensorStore(host: kit).photoCount() == 2)
    }

    @Test func emptyUnknownAndTruncatedFiles() throws {
        let indexer = try indexer()
        let empty = watched.path("empty.jpg").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(try indexer.process(empty) == .ignored)
        let text = watched.path("notes.jpg").path
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: text))
        #expect(try indexer.process(text) == .ignored)
        // A JPEG cut short is still a JPEG by its bytes. Its header cannot be read: the watcher's first tries
        // are told to come back (spec §3.6), the last one records it as 0×0 with the file's mtime.
        let whole = try Data(contentsOf: URL(fileURLWithPath: try jpeg("whole.jpg")))
        let cut = watched.path("cut.jpg").path
        try whole.prefix(40).write(to: URL(fileURLWithPath: cut))
        #expect(try indexer.process(cut, lastTry: false) == .busy(cut))
        guard case .recorded(let row) = try indexer.process(cut, lastTry: true) else {
            Issue.record("a truncated JPEG is still a photo")
            return
        }
        var info = stat()
        #expect(stat(cut, &info) == 0)
        #expect(row.mediaWidth == 0 && row.mediaHeight == 0 && row.duration == 0)
        #expect(row.creationTimestamp == Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000)
        #expect(try indexer.process(watched.path("never-there.jpg").path) == .vanished)
    }

    @Test func rowsCarryTheDisplayedSizeTheDateTakenAndTheDuration() throws {
        let indexer = try indexer()
        let photo = watched.path("upright.jpg").path
        #expect(try ProcessRunner.run("/usr/bin/convert", ["-size", "400x300", "xc:green", photo]).status == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
        bytes.insert(contentsOf: ExifBlock.app1(orientation: 6, date: "2023:12:31 23:59:58", offset: "+00:00"), at: 2)
        try Data(bytes).write(to: URL(fileURLWithPath: photo))
        guard case .recorded(let row) = try indexer.process(photo) else {
            Issue.record("not recorded")
            return
        }
        #expect(row.mediaWidth == 300 && row.mediaHeight == 400, "orientation 6 turns it upright")
        #expect(row.creationTimestamp == 1_704_067_198_000)
        guard let ffmpeg = ProcessRunner.which("ffmpeg") else { return }
        let clip = watched.path("clip.webm").path
        let made = try ProcessRunner.run(
            ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=10:duration=1.5", clip])
        try #require(made.status == 0, "\(made.standardError)")
        guard case .recorded(let video) = try indexer.process(clip) else {
            Issue.record("the clip is not recorded")
            return
        }
        #expect(video.mediaType == 2 && video.mediaWidth == 96 && video.mediaHeight == 64)
        #expect(abs(video.duration - 1.5) < 0.1, "\(video.duration)")
    }

    /// A camera app rewriting a picture in place while the sensor hashes it: the sensor must never keep a row
    /// whose hash mixes the two contents. It says "busy" (and tries again later) or has one whole version.
    @Test func aFileRewrittenWhileHashedGivesBusyOrOneWholeVersion() throws {
        let indexer = try indexer()
        let seed = try Data(contentsOf: URL(fileURLWithPath: try jpeg("seed.jpg")))
        func content(_ fill: UInt8) -> Data { seed + Data(repeating: fill, count: 24 << 20) }
        func digest(_ data: Data) throws -> String {
            let path = folder.path("digest.bin")
            try data.write(to: path)
            return String(try ProcessRunner.run("/usr/bin/sha256sum", [path.path]).standardOutput.prefix(64))
        }
        let old = content(1)
        let new = content(2)
        let wholes = [try digest(old), try digest(new)]
        var busy = 0
        for round in 0..<4 {
            let path = watched.path("rewritten-\(round).jpg").path
            try old.write(to: URL(fileURLWithPath: path))
            let writer = Thread {
                usleep(UInt32(2_000 + round * 4_000))
                guard let handle = FileHandle(forWritingAtPath: path) else { return }
                handle.write(new)  // in place: same inode, new bytes, new mtime
                try? handle.close()
            }
            writer.start()
            let outcome = try indexer.process(path)
            Thread.sleep(forTimeInterval: 0.3)
            switch outcome {
            case .busy: busy += 1
            case .recorded(let row):
                let hash = String(row.localIdentifier.split(separator: ":").last ?? "")
                #expect(wholes.contains(hash), "round \(round): a hash of neither version")
            default: Issue.record("round \(round): \(outcome)")
            }
        }
        print("rewritten while hashed: \(busy) of 4 said busy")
    }
}
