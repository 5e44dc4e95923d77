import Foundation
import PluginKit

/// Opening a document: from the camera (o, "open document"), as read-text started from the shell's menu, where
/// voice listens, reads a PDF, a TIFF or a picture as `--file` does, with its pages, headings and tables; and a
/// locked PDF's password. [main]
extension ReadText {
    /// The keys and words of a document (pages, headings, tables, the arrows by cell and row), and where reading
    /// stopped in it, for a person's reading (not a script's `--transcript` or `--exit-at-end`).
    func prepareForDocument() {
        let commands: [(String, String?)] = [
            ("next-page", "pagedown"), ("previous-page", "pageup"), ("page", nil), ("next-heading", "h"),
            ("previous-heading", "H"), ("table", "t"), ("next-cell", "right"), ("previous-cell", "left"),
            ("next-row", "down"), ("previous-row", "up"),
        ]
        for (id, key) in commands { try? host.registerCommand(id, key: key, phrases: phrases.table) }
        navigator?.headingWord = phrases.text("heading")
        if places == nil, !options.transcript, !options.exitAtEnd { places = try? DocumentPlaces(host: host) }
    }

    /// Asks for the path of a document or a picture to read (the camera rests meanwhile, and what it was reading
    /// waits); a path with no file behind it is asked for again, saying so; Escape goes back to what was going on.
    func askForDocument(prompt: String? = nil) {
        let wasCapturing = capture.withLock { state in
            let was = state.capturing
            state.leavingCamera = true
            state.capturing = false
            return was
        }
        if wasCapturing { stopCapture() }
        let wasReading = navigator?.state == .speaking
        navigator?.pause()
        host.askText(prompt ?? phrases.text("open-ask")) { [self] answer in
            guard !stopped else { return }
            guard let answer, !answer.isEmpty else {
                capture.withLock { $0.leavingCamera = false }
                host.speak(phrases.text("open-cancelled"))
                if wasCapturing { try? startCapture() }
                if wasReading { navigator?.resume() }
                return
            }
            guard let path = Self.documentPath(answer) else {
                return askForDocument(prompt: phrases.text("open-missing", ["path": answer]))
            }
            // What the camera's recognition still sends is dropped; the document opens once it has ended.
            worker.run { [self] in host.onMain { [self] in open(path) } }
        }
    }

    /// Reads the file at `path` as `--file` reads it.
    func open(_ path: String) {
        guard !stopped else { return }
        keepPlace(now: true)
        navigator?.stop()
        documentKey = nil
        capture.withLock { $0.leavingCamera = false }
        options.file = path
        let url = URL(fileURLWithPath: path)
        if Documents.isDocument(path) {
            prepareForDocument()
            readDocument(url)
        } else {
            readPhoto(url)
        }
    }

    /// The file a typed or pasted path names: quotes around it (a file manager's copy) taken off, `~` the home
    /// folder, a relative path from the folder Assist was started in; nil when no file is there.
    static func documentPath(_ typed: String) -> String? {
        var text = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        for quote in ["'", "\""] where text.count >= 2 && text.hasPrefix(quote) && text.hasSuffix(quote) {
            text = String(text.dropFirst().dropLast())
        }
        if text.hasPrefix("file://") { text = URL(string: text)?.path ?? text }
        let expanded = (text as NSString).expandingTildeInPath
        let path = URL(
            fileURLWithPath: expanded, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        )
        .standardizedFileURL.path
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &folder), !folder.boolValue else { return nil }
        return path
    }

    /// Asks for the password of the locked PDF at `url`, neither echoed, spoken, logged nor kept (the host's
    /// secret line), and opens it with the answer; again after a wrong one. Escape ends read-text, saying so.
    /// [main]
    func unlock(_ url: URL, wrong: Bool) {
        guard !stopped else { return }
        let name = url.lastPathComponent
        let prompt = phrases.text(wrong ? "document-password-wrong" : "document-password", ["name": name])
        host.askText(prompt, secret: true) { [self] answer in
            guard let answer, !answer.isEmpty else {
                return fail(phrases.text("document-locked", ["name": name]))
            }
            readDocument(url, password: answer)
        }
    }
}
