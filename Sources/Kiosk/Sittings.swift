import AssistCore
import Foundation

/// A per-person kiosk's sittings (`[kiosk] session = "per-person"`): each person's data root is a folder of
/// its own, `<data>/sittings/<number>`, with their features' data, drafts, history and kept settings. The
/// device keeps the rest in `<data>` (the PIN's back-off, the admin's choices, `sittings/current`).
///
/// A sitting goes on across restarts (a crash, the admin's restart) until it ends: by the person ("I'm done")
/// or after the idle time. The next start begins a new, empty one. A departed sitting stays only while what
/// it holds still has to reach a server, and is then deleted whole.
package struct Sittings: Sendable {
    /// `<data>/sittings`.
    package let folder: URL

    package init(device data: URL) {
        folder = data.appendingPathComponent("sittings")
    }

    private var currentFile: URL { folder.appendingPathComponent("current") }

    /// The sitting going on, if one is: its folder's name, as `current` names it, when that folder exists and is
    /// not marked ended.
    package var current: String? {
        guard let name = noted, Self.isSittingName(name), FileManager.default.fileExists(atPath: path(of: name).path),
            !isEnded(name)
        else { return nil }
        return name
    }

    /// What `current` says, trimmed; nil when there is no such file or it is no text.
    private var noted: String? {
        (try? String(contentsOf: currentFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// True when the sitting `name` is marked ended.
    private func isEnded(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path(of: name).appendingPathComponent(Self.endedMark).path)
    }

    /// The data root of the sitting `name`.
    package func path(of name: String) -> URL { folder.appendingPathComponent(name) }

    /// A sitting's folder name: digits only, so nothing else in `sittings` is ever taken for one.
    package static func isSittingName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 12 && name.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// True when `current` is there but names no sitting (bytes that are no name, a folder that is gone): the
    /// note was damaged, not removed by `end` (which leaves it, at worst, naming a sitting marked ended).
    var currentIsDamaged: Bool {
        guard FileManager.default.fileExists(atPath: currentFile.path), current == nil else { return false }
        guard let name = noted, Self.isSittingName(name) else { return true }
        return !isEnded(name)
    }

    /// The newest sitting whose folder has no ended mark: the one a damaged note stood for (`begin` only ever makes
    /// a sitting newer than every other, and `end` marks it before it lets the note go).
    var newestNotEnded: String? { all.last { !isEnded($0) } }

    /// The sitting to run in: the one going on, or a new, empty one (folder 0700) named after the highest so
    /// far. `isNew` is true for a new one: its start is said aloud. `recovered` is true when the note of the one
    /// going on was damaged and the newest sitting not ended goes on (written anew): a damaged note started a new
    /// sitting without a word, and the person's own was taken for departed, sent and deleted.
    package func begin() throws -> (name: String, root: URL, isNew: Bool, recovered: Bool) {
        try AssistPaths.ensurePrivateDirectory(folder)
        if let name = current { return (name, path(of: name), false, false) }
        if currentIsDamaged, let name = newestNotEnded {
            try PrivateFile.write(Data((name + "\n").utf8), to: currentFile)
            return (name, path(of: name), false, true)
        }
        let next = (all.compactMap { Int($0) }.max() ?? 0) + 1
        let name = String(format: "%04d", next)
        let root = path(of: name)
        try AssistPaths.ensurePrivateDirectory(root)
        try PrivateFile.write(Data((name + "\n").utf8), to: currentFile)
        return (name, root, true, false)
    }

    /// Ends the sitting going on: the next `begin` starts a new one. Its folder stays until `departed` work is
    /// done with it.
    package func end() throws {
        guard let name = current else { return }
        // Two marks, so one that cannot be written still ends it: a file in the sitting's folder, and
        // `current` removed.
        let marked = FileManager.default.createFile(
            atPath: path(of: name).appendingPathComponent(Self.endedMark).path, contents: Data(),
            attributes: [.posixPermissions: 0o600])
        do { try FileManager.default.removeItem(at: currentFile) } catch { if !marked { throw error } }
    }

    /// The file that marks a sitting as ended.
    static let endedMark = "ended"

    /// Every sitting folder, sorted.
    package var all: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter(Self.isSittingName).sorted()
    }

    /// The sittings that have ended but whose folders are still here (their uploads wait), oldest first.
    package var departed: [String] {
        let going = current
        return all.filter { $0 != going }
    }

    /// Deletes a departed sitting's folder whole. The one going on is never deleted.
    package func remove(_ name: String) throws {
        guard Self.isSittingName(name), name != current else { return }
        try FileManager.default.removeItem(at: path(of: name))
    }
}
