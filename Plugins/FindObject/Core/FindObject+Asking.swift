import Foundation
import PluginAPI
import PluginKit

/// Asking what to find when the arguments do not say (find-object.md §2 and §5): a typed name or the
/// numbered list of every object; a typed text or one of the last 10, kept in the plugin's database.
extension FindObject {
    /// Asks for an object's name; Enter alone offers the list. An unknown name is said, then asked again. Said
    /// aloud, the name is judged against the names given to voice (`offerNames`) first.
    func askForObject() {
        host.askText(phrases.text("ask-object"), listed: true) { [self] answer in
            guard let answer else { return host.finish(.cancelled) }
            guard !answer.isEmpty else { return offerList() }
            do throws(PluginError) { startSearch(try resolveObject(answer)) } catch {
                host.speak(error.message)
                askForObject()
            }
        }
    }

    /// The things the person taught, then every object by its main name in the model's order, numbered.
    func offerList() {
        guard let names = try? ObjectNames(directory: host.shareDirectory ?? "", language: language) else {
            return fail(phrases.text("usage"))
        }
        let taught = (try? ThingStore(host: host).all()) ?? []
        let choices = taught.map(\.words) + names.entries.indices.map { names.mainName($0) }
        host.askChoice(phrases.text("choose-object"), choices: choices) { [self] index in
            guard let index else { return host.finish(.cancelled) }
            if index < taught.count { return startSearch(.thing(taught[index])) }
            startSearch(.object(classID: index - taught.count, name: choices[index]))
        }
    }

    /// Offers the last texts searched, newest first, or asks for a new one.
    func askForText() {
        let history = queryHistory()
        guard !history.isEmpty else { return askForNewText() }
        host.askChoice(phrases.text("choose-text"), choices: history + [phrases.text("new-text")]) { [self] index in
            guard let index else { return host.finish(.cancelled) }
            index < history.count ? startSearch(.text(history[index])) : askForNewText()
        }
    }

    func askForNewText() {
        host.askText(phrases.text("ask-text")) { [self] answer in
            guard let answer else { return host.finish(.cancelled) }
            switch TextSearch.validate(answer) {
            case .success(let query): startSearch(.text(query))
            case .failure(let problem):
                host.speak(phrases.text(problem.phraseKey))
                askForNewText()
            }
        }
    }

    // MARK: the history, in the plugin's own database

    private func historyDatabase() throws(PluginStatus) -> PluginDatabaseHandle {
        let database = try PluginDatabaseHandle(host: host, name: "history")
        try database.execute("CREATE TABLE IF NOT EXISTS text_queries (query TEXT PRIMARY KEY, used_at REAL NOT NULL)")
        return database
    }

    /// The last 10 texts searched, newest first; none when the history cannot be read (logged).
    func queryHistory() -> [String] {
        var queries: [String] = []
        do {
            try historyDatabase().execute("SELECT query FROM text_queries ORDER BY used_at DESC LIMIT 10") { row in
                queries += row.prefix(1)
            }
        } catch {
            host.log(.warning, "the search history cannot be read: \(error.message)")
        }
        return queries
    }

    /// Puts `query` first and keeps 10; a failure is logged (the
    /// search goes on without its history).
    func rememberQuery(_ query: String) {
        do {
            let database = try historyDatabase()
            let kept = TextSearch.remember(query, in: queryHistory())
            try database.execute("DELETE FROM text_queries")
            for (rank, text) in kept.enumerated() {
                try database.execute(
                    "INSERT INTO text_queries (query, used_at) VALUES (?, ?)",
                    [.text(text), .integer(Int64(kept.count - rank))])
            }
        } catch {
            host.log(.warning, "the search history cannot be saved: \(error.message)")
        }
    }
}

extension TextSearch.QueryProblem {
    var phraseKey: String {
        switch self {
        case .empty: return "query-empty"
        case .tooLong: return "query-too-long"
        case .noLetters: return "query-no-letters"
        }
    }
}

extension FindObject {
    /// Gives the host's voice recogniser every object's names in the session's language and the names of the
    /// things the person taught, to listen for after "find object" ("find object cup", "find object my keys"),
    /// with the spec's question for when nothing follows (find-object.md §2: "Specify the object"). Called from
    /// the library's init, before the phrase is first heard, and again after a thing is taught or renamed.
    public static func offerNames(host: PluginHostHandle) {
        let language = host.language
        guard let names = try? ObjectNames(directory: host.shareDirectory ?? "", language: language) else { return }
        let phrases = PhraseTable(directory: host.shareDirectory, language: language)
        let taught = ((try? ThingStore(host: host).all()) ?? []).flatMap { [$0.words, $0.key] }
        var choices: [String] = []
        for name in taught + names.entries.flatMap({ $0.names(language) }) where !choices.contains(name) {
            choices.append(name)
        }
        host.setChoices(
            after: phrases.text("phrase.find-object"), prompt: phrases.text("voice-prompt"), choices: choices)
    }
}
