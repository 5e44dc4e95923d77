import CPocketSphinx
import Foundation

/// pocketsphinx takes a keyphrase list only by a file's name, and reads it once, when a search is opened or given a
/// new list. Each list is an anonymous memory file (`assist_spotter_list_open`) for that one call, closed right
/// after it: nothing is written to the temporary folder, so a process that ends by `exit`, a signal or a crash
/// leaves nothing behind (a folder kept for the spotter's life was left by every session stopped with a signal).
enum PhraseListFile {
    /// A one-phrase list that decoders are opened with before they are given their own search.
    static let probe = "yes /1e-10/\n"

    /// Calls `body` with a name pocketsphinx can open that holds `lines`; the file is gone when it returns.
    static func with<T>(_ lines: String, _ body: (String) throws(VoiceError) -> T) throws(VoiceError) -> T {
        var name = [CChar](repeating: 0, count: 64)
        let descriptor = assist_spotter_list_open(lines, &name, name.count)
        guard descriptor >= 0 else {
            throw .library("the phrase list cannot be made (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        return try body(String(nulTerminated: name))
    }
}
