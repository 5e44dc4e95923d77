import Foundation
import PluginKit

/// A things file SQLite cannot read (issue 73, item 6): said with the way out, and kept aside on request.
extension FindObject {
    /// Why the things cannot be read, and, when their file is damaged, the way out (issue 73, item 6: teaching
    /// was refused for good, and a search went on as if nothing was taught).
    func unreadableThings(_ error: PluginStatus) -> String {
        // A damaged file is one sentence of find-object's own, then the way out (the storage service's sentence,
        // path and SQLite's words, said inside it, was one sentence inside another).
        if ThingFile.database.isDamaged(in: host.dataDirectory, failing: error) {
            return phrases.text("things-damaged") + " " + phrases.text("things-start-again")
        }
        return phrases.text("things-unreadable", ["reason": error.message])
    }

    /// `things --start-again`: a damaged things file is kept aside (`things.sqlite.damaged-DATE`, with its journal),
    /// and the next teach starts a new one. A file that can be read is left alone.
    func startAgain() throws(PluginError) -> Bool {
        guard let folder = host.dataDirectory else { throw PluginError(phrases.text("things-usage")) }
        let outcome: DamagedDatabase.StartedAgain
        do {
            outcome = try ThingFile.database.startAgain(in: folder) { () throws(PluginStatus) in
                _ = try ThingStore(host: host)
            }
        } catch {
            switch error {
            case .unreadable(let error): throw PluginError(unreadableThings(error))
            case .notMoved(let reason): throw PluginError(phrases.text("things-not-moved", ["reason": reason]))
            }
        }
        guard case .keptAside(let kept) = outcome else { throw PluginError(phrases.text("things-not-damaged")) }
        host.speak(phrases.text("things-kept-aside", ["path": kept]))
        host.finish()
        return true
    }
}

/// The things' database file, when SQLite cannot read it (issue 73, item 6).
enum ThingFile {
    static let database = DamagedDatabase(file: "things.sqlite")
}
