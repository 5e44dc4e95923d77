import Foundation
import HostTesting
import PhotoSensorCore
import Testing

/// The watcher on real folders: what writers do (write then rename, partial names, bursts, new subfolders,
/// renames inside and moves from outside) and what it must report.
@Suite("photo-sensor folder watching", .serialized)
struct FolderWatcherTests {
    final class Changes: @unchecked Sendable {  // because: `items` is guarded by `lock`
        private let lock = NSLock()
        private var items: [FolderChange] = []
        func add(_ batch: [FolderChange]) { lock.withLock { items += batch } }
        var all: [FolderChange] { lock.withLock { items } }
        var arrived: [String] { all.compactMap { if case .arrived(let path) = $0 { path } else { nil } } }

        /// Waits until `condition` holds, up to `timeout` seconds.
        @discardableResult
        func wait(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if condition() { return true }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return condition()
        }
    }

    func watcher(_ folder: TemporaryDirectory, recursive: Bool = false, debounce: Double = 0.2) throws -> (
        FolderWatcher, Changes
    ) {
        let changes = Changes()
        let watcher = FolderWatcher(folders: [folder.url.path], recursive: recursive, debounceSeconds: debounce) {
            changes.add($0)
        }
        try watcher.start()
        return (watcher, changes)
    }

    @Test func aFileWrittenThenRenamedArrivesOnceUnderItsFinalName() throws {
        let folder = try TemporaryDirectory("assist-watch-rename")
        let (watcher, changes) = try watcher(folder)
        defer { watcher.stop() }
        let outside = try TemporaryDirectory("assist-watch-outside")
        // A download written beside the folder, then moved in: one arrival.
        try Data(repeating: 1, count: 5_000).write(to: outside.path("img.jpg"))
        try FileManager.default.moveItem(at: outside.path("img.jpg"), to: folder.path("img.jpg"))
        // A writer that uses a partial name inside the folder, then renames: a rename, and the final name's
        // close never happened under it, so only the partial name was written.
        try Data(repeating: 2, count: 5_000).write(to: folder.path("shot.jpg.part"))
        try FileManager.default.moveItem(at: folder.path("shot.jpg.part"), to: folder.path("shot.jpg"))
        #expect(
            changes.wait {
                changes.all.contains(
                    .renamed(from: folder.path("shot.jpg.part").path, to: folder.path("shot.jpg").path))
            })
        #expect(changes.wait { changes.arrived.contains(folder.path("img.jpg").path) })
        Thread.sleep(forTimeInterval: 0.4)
        #expect(changes.arrived.filter { $0.hasSuffix("img.jpg") }.count == 1)
    }

    @Test func manyEventsOnOnePathSettleIntoOneArrival() throws {
        let folder = try TemporaryDirectory("assist-watch-debounce")
        // Five writes 50 ms apart settle as one under a pause of a second, four times what they take: on a loaded
        // machine (the whole suite on 2 cores) a pause of 200 ms was shorter than a gap between two, twice.
        let pause = ProcessRunner.timeScale
        let (watcher, changes) = try watcher(folder, debounce: pause)
        defer { watcher.stop() }
        let path = folder.path("video.mp4")
        for round in 0..<5 {
            try Data(repeating: UInt8(round), count: 1_000 * (round + 1)).write(to: path)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(changes.wait { changes.arrived.count == 1 })
        Thread.sleep(forTimeInterval: pause + 0.2)
        #expect(changes.arrived == [path.path])
    }

    @Test func aBurstOfAThousandFilesArrivesWhole() throws {
        let folder = try TemporaryDirectory("assist-watch-burst")
        let (watcher, changes) = try watcher(folder)
        defer { watcher.stop() }
        for index in 0..<1_000 {
            try Data([0xFF, 0xD8, 0xFF, UInt8(index % 256)]).write(to: folder.path("p\(index).jpg"))
        }
        #expect(changes.wait(timeout: 20) { Set(changes.arrived).count == 1_000 })
        #expect(changes.arrived.count == 1_000, "each once")
    }

    @Test func newSubfoldersAreWatchedAndScannedWhenRecursive() throws {
        let folder = try TemporaryDirectory("assist-watch-recursive")
        let (watcher, changes) = try watcher(folder, recursive: true)
        defer { watcher.stop() }
        // A whole folder moved in from outside: its files are new.
        let outside = try TemporaryDirectory("assist-watch-import")
        try FileManager.default.createDirectory(at: outside.path("trip/day1"), withIntermediateDirectories: true)
        try Data([1]).write(to: outside.path("trip/day1/a.jpg"))
        try Data([2]).write(to: outside.path("trip/b.jpg"))
        try FileManager.default.moveItem(at: outside.path("trip"), to: folder.path("trip"))
        #expect(
            changes.wait {
                Set(changes.arrived) == [folder.path("trip/day1/a.jpg").path, folder.path("trip/b.jpg").path]
            })
        // A file written into the new subfolder later is seen through its own watch.
        try Data([3]).write(to: folder.path("trip/day1/c.jpg"))
        #expect(changes.wait { changes.arrived.contains(folder.path("trip/day1/c.jpg").path) })
        // Renaming the subfolder inside the tree is a rename, and its watch follows it.
        try FileManager.default.moveItem(at: folder.path("trip"), to: folder.path("holiday"))
        #expect(
            changes.wait {
                changes.all.contains(.renamed(from: folder.path("trip").path, to: folder.path("holiday").path))
            })
        try Data([4]).write(to: folder.path("holiday/day1/d.jpg"))
        #expect(changes.wait { changes.arrived.contains(folder.path("holiday/day1/d.jpg").path) })
    }

    @Test func aSymlinkLoopDoesNotTrapTheWalk() throws {
        let folder = try TemporaryDirectory("assist-watch-loop")
        try FileManager.default.createDirectory(at: folder.path("a"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("a/loop").path, withDestinationPath: folder.url.path)
        let (watcher, changes) = try watcher(folder, recursive: true)
        defer { watcher.stop() }
        #expect(watcher.watchedFolders == [folder.url.path, folder.path("a").path])
        try Data([1]).write(to: folder.path("a/x.png"))
        #expect(changes.wait { changes.arrived == [folder.path("a/x.png").path] })
    }

    @Test func aMissingFolderIsNamedAndTheOthersStillWork() throws {
        let folder = try TemporaryDirectory("assist-watch-missing")
        let changes = Changes()
        let gone = folder.path("not-there").path
        let watcher = FolderWatcher(folders: [gone, folder.url.path], recursive: false, debounceSeconds: 0.2) {
            changes.add($0)
        }
        try watcher.start()
        defer { watcher.stop() }
        #expect(watcher.unwatched[gone] != nil)
        try Data([1]).write(to: folder.path("ok.jpg"))
        #expect(changes.wait { changes.arrived == [folder.path("ok.jpg").path] })
    }

    @Test func aFolderThatAppearsLaterIsWatchedAtTheNextTry() throws {
        let folder = try TemporaryDirectory("assist-watch-later")
        let later = folder.path("Camera").path
        let changes = Changes()
        let watcher = FolderWatcher(folders: [later], recursive: false, debounceSeconds: 0.1, retrySeconds: 0.3) {
            changes.add($0)
        }
        try watcher.start()
        defer { watcher.stop() }
        #expect(watcher.unwatched[later] != nil)
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: true)
        try Data([7]).write(to: URL(fileURLWithPath: later + "/early.jpg"))
        #expect(changes.wait { changes.arrived.contains(later + "/early.jpg") }, "what it held is reported")
        #expect(watcher.unwatched.isEmpty)
        try Data([8]).write(to: URL(fileURLWithPath: later + "/next.jpg"))
        #expect(changes.wait { changes.arrived.contains(later + "/next.jpg") }, "and it is watched from then on")
        // Deleted while watched: named, and watched again once it is back.
        try FileManager.default.removeItem(atPath: later)
        #expect(changes.wait { changes.all.contains(.folderGone(later)) })
        #expect(watcher.unwatched[later] == "it was deleted or moved")
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: true)
        try Data([9]).write(to: URL(fileURLWithPath: later + "/back.jpg"))
        #expect(changes.wait { changes.arrived.contains(later + "/back.jpg") })
    }

    @Test func theWatchLimitLeavesSubfoldersToPeriodicCatchUps() throws {
        let folder = try TemporaryDirectory("assist-watch-limit")
        for name in ["a", "b", "c"] {
            try FileManager.default.createDirectory(at: folder.path(name), withIntermediateDirectories: true)
        }
        let changes = Changes()
        let watcher = FolderWatcher(
            folders: [folder.url.path], recursive: true, debounceSeconds: 0.1, retrySeconds: 0.2, rescanSeconds: 0.4,
            maxWatches: 2
        ) { changes.add($0) }
        try watcher.start()
        defer { watcher.stop() }
        #expect(watcher.watchedFolders.count == 2)
        #expect(watcher.unwatched.values.filter { $0 == FolderWatcher.limitReason }.count == 2)
        #expect(
            changes.wait { changes.all.filter { $0 == .overflow }.count >= 2 },
            "a catch-up every rescan period covers the folders left out")
    }

    /// A queue of 16 events (`fs.inotify.max_queued_events`, set only while this watcher opens inotify, then put
    /// back) overflows under a burst: the watcher says so, and the sensor turns that into a catch-up.
    @Test func aBurstThatOverflowsATinyQueueIsReported() throws {
        let setting = "/proc/sys/fs/inotify/max_queued_events"
        guard let original = try? String(contentsOfFile: setting, encoding: .utf8),
            FileManager.default.isWritableFile(atPath: setting)
        else {
            print("skipped: \(setting) cannot be changed here (needs root)")
            return
        }
        let folder = try TemporaryDirectory("assist-watch-overflow")
        let changes = Changes()
        // The handler runs on the watcher's thread: a slow first batch stands for a busy machine, so the
        // kernel's queue fills meanwhile.
        let watcher = FolderWatcher(folders: [folder.url.path], recursive: false, debounceSeconds: 0.05) {
            changes.add($0)
            if changes.all.count == 1 { Thread.sleep(forTimeInterval: 1) }
        }
        try "16".write(toFile: setting, atomically: false, encoding: .utf8)
        do {
            try watcher.start()
            try original.write(toFile: setting, atomically: false, encoding: .utf8)
        } catch {
            try? original.write(toFile: setting, atomically: false, encoding: .utf8)
            throw error
        }
        defer { watcher.stop() }
        try Data([1]).write(to: folder.path("first.jpg"))
        #expect(changes.wait { !changes.all.isEmpty })
        for index in 0..<200 { try Data([1]).write(to: folder.path("f\(index).jpg")) }
        #expect(changes.wait { changes.all.contains(.overflow) }, "\(changes.all.count) changes, none an overflow")
    }
}
