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

    func watcher(_ folder: TemporaryDirectory, recursive: Bool = false) throws -> (FolderWatcher, Changes) {
        let changes = Changes()
        let watcher = FolderWatcher(folders: [folder.url.path], recursive: recursive, debounceSeconds: 0.2) {
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
        let (watcher, changes) = try watcher(folder)
        defer { watcher.stop() }
        let path = folder.path("video.mp4")
        for round in 0..<5 {
            try Data(repeating: UInt8(round), count: 1_000 * (round + 1)).write(to: path)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(changes.wait { changes.arrived.count == 1 })
        Thread.sleep(forTimeInterval: 0.4)
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
}
