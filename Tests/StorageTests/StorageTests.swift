import Foundation
import HostTesting
import Storage
import Testing

@Suite("Plugin databases on real SQLite files")
struct PluginDatabaseTests {
    let folder: TemporaryDirectory
    let database: PluginDatabase

    init() throws {
        folder = try TemporaryDirectory("assist-db")
        database = try PluginDatabase(url: folder.path("plugin/main.sqlite"))
    }

    func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [[SQLValue]] {
        var result: [[SQLValue]] = []
        try database.execute(sql, arguments: arguments) { _, values in
            result.append(values)
            return true
        }
        return result
    }

    /// The test process keeps the usual umask (022): the modes come from the code, not from the host's umask.
    @Test func theDatabaseAndItsJournalFilesAreTheOwnersAlone() throws {
        try database.execute("CREATE TABLE t (i INTEGER)")
        try database.execute("INSERT INTO t VALUES (1)")
        let manager = FileManager.default
        let folderMode = try manager.attributesOfItem(atPath: folder.path("plugin").path)[.posixPermissions] as? Int
        #expect(folderMode == 0o700)
        for name in ["main.sqlite", "main.sqlite-wal", "main.sqlite-shm"] {
            let path = folder.path("plugin/\(name)").path
            let mode = try #require(try manager.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(name) is \(String(mode, radix: 8))")
        }
    }

    /// A database let go closes its file: none of its descriptors stays open, confined or not (a connection
    /// that was never closed kept every file of every plugin's database open for the life of the process).
    @Test func aDatabaseLetGoClosesItsFiles() throws {
        let url = folder.path("plugin/closed.sqlite")
        func openHere() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?
                    .hasPrefix(url.path) == true
            }.count
        }
        for confined in [false, true] {
            for _ in 0..<20 {
                let opened = try PluginDatabase(url: url, confined: confined ? Confinement() : nil)
                try opened.execute("CREATE TABLE IF NOT EXISTS t (i INTEGER)")
                try opened.execute("INSERT INTO t VALUES (1)")
                #expect(openHere() > 0)
            }
            #expect(openHere() == 0, "confined \(confined): descriptors left open")
        }
    }

    @Test func boundParametersRoundTripEveryType() throws {
        try database.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)")
        let changed = try database.execute(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
            arguments: [.integer(42), .real(2.5), .text("Привет; DROP TABLE t"), .blob(Data([0, 1, 2])), .null])
        #expect(changed == 1)
        #expect(
            try rows("SELECT * FROM t") == [
                [.integer(42), .real(2.5), .text("Привет; DROP TABLE t"), .blob(Data([0, 1, 2])), .null]
            ])
        var names: [String] = []
        try database.execute("SELECT i AS number, s FROM t") { columns, _ in
            names = columns
            return false
        }
        #expect(names == ["number", "s"])
    }

    @Test func theFileIsInWALModeOnDisk() throws {
        #expect(try rows("PRAGMA journal_mode") == [[.text("wal")]])
        #expect(FileManager.default.fileExists(atPath: folder.path("plugin/main.sqlite").path))
    }

    @Test func transactionsSpanCallsAndRollBack() throws {
        try database.execute("CREATE TABLE t (x)")
        try database.begin()
        try database.execute("INSERT INTO t VALUES (1)")
        try database.rollback()
        try database.begin()
        try database.execute("INSERT INTO t VALUES (2)")
        try database.commit()
        #expect(try rows("SELECT x FROM t") == [[.integer(2)]])
    }

    /// A plugin's worker in a transaction and its main thread writing at the same moment on one handle: the
    /// main thread's statement waits for the transaction's end instead of landing inside it (and being rolled
    /// back with it), and its own transaction does not fail as nested.
    @Test func anotherThreadNeverLandsInsideATransaction() throws {
        try database.execute("CREATE TABLE t (x)")
        try database.begin()
        try database.execute("INSERT INTO t VALUES (1)")
        let database = self.database
        let done = Collected<String>()
        Thread.detachNewThread {
            do {
                try database.begin()
                try database.execute("INSERT INTO t VALUES (2)")
                try database.commit()
                done.append("ok")
            } catch {
                done.append("\(error)")
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(done.values.isEmpty, "the other thread waits while the transaction is open")
        try database.rollback()
        #expect(done.wait(count: 1, timeout: 5))
        #expect(done.values == ["ok"])
        #expect(try rows("SELECT x FROM t") == [[.integer(2)]], "the rollback took only its own row")
    }

    @Test func migrationsRunOnceInOrder() throws {
        #expect(try database.migrate(to: 1, sql: "CREATE TABLE a (x); INSERT INTO a VALUES (1);"))
        #expect(try !database.migrate(to: 1, sql: "INSERT INTO a VALUES (99);"), "already at version 1")
        #expect(try database.migrate(to: 2, sql: "ALTER TABLE a ADD COLUMN y"))
        #expect(try database.version() == 2)
        #expect(try rows("SELECT x FROM a") == [[.integer(1)]])
        // A failing migration leaves the database as it was.
        #expect(throws: StorageError.self) { try database.migrate(to: 3, sql: "CREATE TABLE b (x); SELEC nonsense;") }
        #expect(try database.version() == 2)
        #expect(try rows("SELECT name FROM sqlite_master WHERE name = 'b'").isEmpty)
    }

    @Test func malformedSQLIsOneClearErrorAndNothingIsLost() throws {
        try database.execute("CREATE TABLE t (x)")
        try database.execute("INSERT INTO t VALUES (1)")
        do {
            try database.execute("INSRT INTO t VALUES (2)")
            Issue.record("malformed SQL ran")
        } catch {
            #expect(error.code == .sql)
            #expect(error.message.hasPrefix("The database refused a statement: near \"INSRT\""))
        }
        #expect(try rows("SELECT x FROM t") == [[.integer(1)]])
    }

    /// A write another connection blocks past the 5 s busy timeout (as another program holding the file would)
    /// is not the plugin's SQL at fault: it names the database and says to try again, and nothing is lost.
    @Test func aDatabaseAnotherConnectionHoldsIsNamedAndNotCalledBadSQL() throws {
        try database.execute("CREATE TABLE t (x)")
        let other = try PluginDatabase(url: folder.path("plugin/main.sqlite"))
        try other.begin()
        do {
            try database.execute("INSERT INTO t VALUES (1)")
            Issue.record("a write went through another connection's write lock")
        } catch {
            #expect(error.code == .io)
            #expect(
                error.message == "The database \(folder.path("plugin/main.sqlite").path) is in use by another program "
                    + "(database is locked). Try again in a moment.")
        }
        try other.rollback()
        try database.execute("INSERT INTO t VALUES (2)")
        #expect(try rows("SELECT x FROM t") == [[.integer(2)]])
    }

    @Test func theDataSurvivesReopening() throws {
        try database.execute("CREATE TABLE t (x)")
        try database.execute("INSERT INTO t VALUES ('kept')")
        let reopened = try PluginDatabase(url: folder.path("plugin/main.sqlite"))
        var value: SQLValue?
        try reopened.execute("SELECT x FROM t") { _, values in
            value = values.first
            return false
        }
        #expect(value == .text("kept"))
    }

    /// SQLite's connections hold POSIX locks, and closing any descriptor of the file drops every lock the
    /// process holds on it. Opening a second connection here must not do that: another process's connection
    /// would then think, as it closed, that it was the last, fold the write-ahead log in and delete it while
    /// this one still used it (a test once read back three jobs another process had sent, and none of their
    /// outcomes).
    @Test func aSecondConnectionKeepsTheFirstsLocks() throws {
        try database.execute("CREATE TABLE t (x)")
        try database.execute("INSERT INTO t VALUES (1)")
        let path = folder.path("plugin/main.sqlite").path
        do { _ = try PluginDatabase(url: folder.path("plugin/main.sqlite")) }
        let other = try ProcessRunner.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('INSERT INTO t VALUES (2)'); "
                    + "c.commit(); c.close()",
                path,
            ])
        try #require(other.status == 0, "\(other)")
        #expect(
            FileManager.default.fileExists(atPath: path + "-wal"),
            "the other process took itself for the last connection and removed the log")
        #expect(try rows("SELECT x FROM t ORDER BY x") == [[.integer(1)], [.integer(2)]])
    }
}

@Suite("Media store")
struct MediaStoreTests {
    let folder: TemporaryDirectory
    let store: MediaStore

    init() throws {
        folder = try TemporaryDirectory("assist-media")
        store = MediaStore(media: folder.path("data/media"), cache: folder.path("cache"), quotaBytes: 1_000)
    }

    @Test func filesAreCreatedMovedListedAndDeleted() throws {
        let file = try store.create("things/cup/clip1.mp4")
        try Data(repeating: 7, count: 300).write(to: file)
        #expect(store.list() == ["things/cup/clip1.mp4"])
        let cached = try store.moveToCache("things/cup/clip1.mp4")
        #expect(store.list().isEmpty && store.list(inCache: true) == ["things/cup/clip1.mp4"])
        #expect(FileManager.default.fileExists(atPath: cached.path))
        #expect(store.usage() == 300)
        try store.delete("things/cup/clip1.mp4", inCache: true)
        #expect(store.usage() == 0)
        let mode =
            try FileManager.default.attributesOfItem(atPath: try store.create("private.wav").path)[.posixPermissions]
            as? Int
        #expect(mode == 0o600)
    }

    @Test func theQuotaIsAClearError() throws {
        try Data(repeating: 1, count: 1_000).write(to: try store.create("big.bin"))
        do {
            _ = try store.create("more.bin")
            Issue.record("over quota")
        } catch {
            #expect(error.code == .quota)
            #expect(error.message.hasPrefix("This feature's storage is full"))
        }
        #expect(throws: StorageError.self) { try store.reserve(1) }
    }

    @Test func aReservationLargerThanTheFreeDiskIsRefusedWithinTheQuota() throws {
        let roomy = MediaStore(media: folder.path("data/media"), cache: folder.path("cache"), quotaBytes: 1 << 62)
        let free = try #require(roomy.freeBytes(), "the media folder's file system reports its free space")
        #expect(free > 0)
        try roomy.reserve(min(free / 2, 1 << 20))
        do {
            try roomy.reserve(free + (1 << 30))
            Issue.record("reserved more than the disk holds")
        } catch {
            #expect(error.code == .full && error.message.hasPrefix("The disk is full."))
        }
    }

    @Test(arguments: ["../escape.txt", "/etc/passwd", "a/../../b", "./x", "", "bad\0name"])
    func namesCannotLeaveThePluginsFolder(name: String) {
        #expect(throws: StorageError.self) { try store.create(name) }
    }

    @Test func aSymbolicLinkLeadingOutIsRefused() throws {
        try FileManager.default.createDirectory(at: folder.path("data/media"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: folder.path("data/media/out"), withDestinationURL: folder.path("elsewhere"))
        try FileManager.default.createDirectory(at: folder.path("elsewhere"), withIntermediateDirectories: true)
        #expect(throws: StorageError.self) { try store.create("out/file.txt") }
    }
}
