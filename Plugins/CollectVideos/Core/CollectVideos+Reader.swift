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

    static let readerCommands: [(id: String, label: String, key: String, phrase: String)] = [
        ("text-next", "Next paragraph", "down", "next paragraph"),
        ("text-previous", "Previous paragraph", "up", "previous paragraph"),
        ("text-next-heading", "Next heading", "pagedown", "next heading"),
        ("text-previous-heading", "Previous heading", "pageup", "previous heading"),
        ("text-follow", "Follow the link", "enter", "follow link"),
        ("text-save", "Save as a web page", "s", "save"),
        ("text-back", "Back to the menu", "b", "back"),
    ]

    static let titles = [
        "information": "ORBIT participant information", "introduction": "Introduction to the ORBIT study",
        "recording-help": "How to film your things", "consent": "ORBIT consent",
    ]

    /// Reads the study text `name`, then `then` (at its end, or when the user goes back).
    func read(_ name: String, then: @escaping () -> Void) {
        let text = StudyText(markdown: studyText(name))
        guard !text.pieces.isEmpty else {
            say("This text is missing. Ask the study team to reinstall it.")
            return then()
        }
        for command in Self.readerCommands {
            try? host.registerCommand(id: command.id, label: command.label, key: command.key, phrase: command.phrase)
        }
        reader = TextReader(name: name, title: Self.titles[name] ?? name, text: text, then: then)
        say("Down: next paragraph. Page Down: next heading. Enter: follow a link. S: save. B: back.")
        readPiece(0)
    }

    /// Says piece `index` and, when it was heard to its end, the next one.
    func readPiece(_ index: Int) {
        guard var state = reader else { return }
        if let utterance = state.utterance { host.stopSpeech(utterance) }
        guard state.text.pieces.indices.contains(index) else {
            if index >= state.text.pieces.count {
                say("End of \(state.title).")
                closeReader()
            } else {
                say("Start of \(state.title).")
            }
            return
        }
        state.position = index
        state.generation += 1
        let generation = state.generation
        let piece = state.text.pieces[index]
        var line = piece.text
        if case .heading = piece.kind { line = "Heading: " + line }
        if !piece.jumps.isEmpty { line += " Enter follows the link." }
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
                say("No more headings.")
            }
        case "text-previous-heading":
            if let previous = pieces.indices.last(where: { $0 < state.position && isHeading($0) }) {
                readPiece(previous)
            } else {
                say("No heading before this.")
            }
        case "text-follow":
            guard pieces.indices.contains(state.position), let anchor = pieces[state.position].jumps.first else {
                say("This paragraph has no link.")
                return true
            }
            let target = pieces.firstIndex { piece in
                if case .heading(_, let found) = piece.kind { return found == anchor }
                return false
            }
            if let target {
                readPiece(target)
            } else {
                say("The link leads nowhere in this text.")
            }
        case "text-save":
            stopReading()
            askSavePath(state.name, title: state.title) { [weak self] in self?.resumeReading(state) }
        case "text-back":
            say("Back.")
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
        host.askText("Save as a web page. Where? Enter keeps \(fallback).") { [weak self] answer in
            guard let self else { return }
            guard let answer else { return then() }
            var path = answer.isEmpty ? fallback : answer
            if path.hasPrefix("~/") { path = home + path.dropFirst(1) }
            if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
            if !path.lowercased().hasSuffix(".html") && !path.lowercased().hasSuffix(".htm") { path += ".html" }
            let write = { [weak self] in
                guard let self else { return }
                say(Self.savePage(StudyText(markdown: studyText(name)).page(title: title), to: path))
                then()
            }
            guard FileManager.default.fileExists(atPath: path) else { return write() }
            host.confirm("\(path) exists. Replace it? Y or N.", defaultYes: false) { [weak self] yes in
                if yes { return write() }
                self?.say("Not saved.")
                then()
            }
        }
    }

    /// Writes `page` to `path` whole (a file beside it, renamed over it), mode 0600; the sentence to say.
    static func savePage(_ page: String, to path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return "There is no folder \(folder). Nothing was saved."
        }
        let partial = folder + "/." + url.lastPathComponent + ".partial"
        guard
            FileManager.default.createFile(
                atPath: partial, contents: Data(page.utf8), attributes: [.posixPermissions: 0o600]),
            rename(partial, path) == 0
        else {
            try? FileManager.default.removeItem(atPath: partial)
            return "\(path) cannot be written: check the folder's permissions and free space. Nothing was saved."
        }
        return "Saved to \(path)."
    }
}
