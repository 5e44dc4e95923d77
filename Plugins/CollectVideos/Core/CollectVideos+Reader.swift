import Foundation
import PluginKit

/// A study text read by ear (spec §3.3, §3.6, §3.7, §6): piece by piece from the top, going on by itself while
/// speech is heard; Down and Up (or Right and Left) by paragraph, Page Down and Page Up by heading, Enter
/// follows the piece's link to its heading, S saves the whole page as HTML, B goes back. Typed or spoken:
/// "next paragraph", "next heading", "follow link", "save", "back". The host keeps H and F1 for its help.
extension CollectVideos {
    /// Where the reader is in a text, and what comes after it.
    struct TextReader {
        var name: String
        var title: String
        var text: StudyText
        var position = -1
        /// Bumped at every move, so that the end of an older utterance does not move on.
        var generation = 0
        var utterance: UInt64?
        var then: () -> Void
    }

    /// The reader's commands and their keys; their labels and phrases are `command.<id>` and `phrase.<id>`.
    static let readerCommands: [(id: String, key: String)] = [
        ("text-next", "down"), ("text-previous", "up"), ("text-next-heading", "pagedown"),
        ("text-previous-heading", "pageup"), ("text-follow", "enter"), ("text-save", "s"), ("text-back", "b"),
    ]

    /// The title of the study text `name`, as it is said.
    func title(_ name: String) -> String { phrases.text("title-" + name) }

    /// The study's texts are the study's own, in English: said once a run in another language.
    func sayTextsAreEnglish() {
        guard host.language != "en", !saidTextsAreEnglish else { return }
        saidTextsAreEnglish = true
        say(phrases.text("texts-in-english"))
    }

    /// Reads the study text `name`, then `then` (at its end, or when the user goes back).
    func read(_ name: String, then: @escaping () -> Void) {
        let text = StudyText(markdown: studyText(name))
        guard !text.pieces.isEmpty else {
            say(phrases.text("text-missing"))
            return then()
        }
        for command in Self.readerCommands { try? host.registerCommand(command.id, key: command.key, phrases: phrases) }
        sayTextsAreEnglish()
        reader = TextReader(name: name, title: title(name), text: text, then: then)
        say(phrases.text("reader-keys"))
        readPiece(0)
    }

    /// Says piece `index` and, when it was heard to its end, the next one.
    func readPiece(_ index: Int) {
        guard var state = reader else { return }
        if let utterance = state.utterance { host.stopSpeech(utterance) }
        guard state.text.pieces.indices.contains(index) else {
            if index >= state.text.pieces.count {
                say(phrases.text("text-end", ["title": state.title]))
                closeReader()
            } else {
                say(phrases.text("text-start", ["title": state.title]))
            }
            return
        }
        state.position = index
        state.generation += 1
        let generation = state.generation
        let piece = state.text.pieces[index]
        var line = piece.text
        if case .heading = piece.kind { line = phrases.text("heading", ["text": line]) }
        if !piece.jumps.isEmpty { line += " " + phrases.text("enter-follows") }
        reader = state
        let id = host.speak(
            line, priority: .message,
            onDone: { [weak self] _, finished in
                guard finished, let self, let reader, reader.generation == generation else { return }
                readPiece(index + 1)
            })
        reader?.utterance = id
    }

    /// The reader's commands; false when no text is being read.
    func handleReader(_ command: String) -> Bool {
        guard let state = reader else { return false }
        let pieces = state.text.pieces
        let isHeading = { (index: Int) -> Bool in
            if case .heading = pieces[index].kind { return true }
            return false
        }
        switch command {
        case "text-next", "next": readPiece(state.position + 1)
        case "text-previous", "previous": readPiece(max(-1, state.position - 1))
        case "text-next-heading":
            if let next = pieces.indices.first(where: { $0 > state.position && isHeading($0) }) {
                readPiece(next)
            } else {
                say(phrases.text("no-more-headings"))
            }
        case "text-previous-heading":
            if let previous = pieces.indices.last(where: { $0 < state.position && isHeading($0) }) {
                readPiece(previous)
            } else {
                say(phrases.text("no-heading-before"))
            }
        case "text-follow":
            guard pieces.indices.contains(state.position), let anchor = pieces[state.position].jumps.first else {
                say(phrases.text("no-link"))
                return true
            }
            let target = pieces.firstIndex { piece in
                if case .heading(_, let found) = piece.kind { return found == anchor }
                return false
            }
            if let target {
                readPiece(target)
            } else {
                say(phrases.text("link-nowhere"))
            }
        case "text-save":
            stopReading()
            askSavePath(state.name, title: state.title) { [weak self] in self?.resumeReading(state) }
        case "text-back":
            say(phrases.text("back"))
            closeReader()
        default: return false
        }
        return true
    }

    /// Silences the reader while a question is asked; `resumeReading` goes on where it was.
    private func stopReading() {
        guard let utterance = reader?.utterance else { return }
        reader?.generation += 1
        host.stopSpeech(utterance)
    }

    private func resumeReading(_ state: TextReader) {
        guard reader != nil else { return }
        readPiece(max(0, state.position))
    }

    /// Leaves the text: its commands go, and what comes after it runs.
    func closeReader() {
        guard let state = reader else { return }
        stopReading()
        reader = nil
        for command in Self.readerCommands { host.unregisterCommand(command.id) }
        state.then()
    }

    // MARK: Save as HTML (spec §3.7)

    /// Asks where to save the text `name` as a complete web page (Enter keeps the default in the home
    /// folder), asks before overwriting, writes it whole, and says the path; then `then`.
    func askSavePath(_ name: String, title: String, then: @escaping () -> Void) {
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        let fallback = home + "/ORBIT-Participant-Information.html"
        host.askText(phrases.text("save-where", ["path": fallback])) { [weak self] answer in
            guard let self else { return }
            guard let answer else { return then() }
            var path = answer.isEmpty ? fallback : answer
            if path.hasPrefix("~/") { path = home + path.dropFirst(1) }
            if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
            if !path.lowercased().hasSuffix(".html") && !path.lowercased().hasSuffix(".htm") { path += ".html" }
            let write = { [weak self] in
                guard let self else { return }
                say(savePage(StudyText(markdown: studyText(name)).page(title: title), to: path))
                then()
            }
            guard FileManager.default.fileExists(atPath: path) else { return write() }
            host.confirm(phrases.text("replace-file-ask", ["path": path]), defaultYes: false) { [weak self] yes in
                if yes { return write() }
                self?.say(self?.phrases.text("not-saved") ?? "")
                then()
            }
        }
    }

    /// Writes `page` to `path` whole (a file beside it, renamed over it), mode 0600; the sentence to say.
    func savePage(_ page: String, to path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return phrases.text("no-such-folder", ["folder": folder])
        }
        guard PrivateFile.writeWhole(Data(page.utf8), to: url) else {
            return phrases.text("page-unwritable", ["path": path])
        }
        return phrases.text("saved-to", ["path": path])
    }
}
