/// Maps keys, typed lines and voice phrases to commands for the focused feature.
///
/// Built-in commands (next, previous, pause, resume, faster, slower, repeat, stop, help) apply to every
/// feature. A focused feature may rebind a built-in key or phrase to its own command, except the reserved
/// ones (stop, repeat, help); two bindings of one owner, or two global bindings, may not share a key or
/// phrase. Voice recognition delivers `.phrase` events into the same table.
package struct CommandRouter: Sendable {
    /// The owner name of built-in commands.
    package static let hostOwner = "host"
    /// Commands that only the host may bind.
    package static let reservedCommands: Set<String> = ["stop", "repeat", "help", typeCommand, whatCanISay, tutorial]
    /// The toggle the Space key sends; the controller turns it into pause or resume.
    package static let pauseToggle = "pause-or-resume"

    private var storage: [CommandBinding] = []
    /// Every binding; a change rebuilds the indexes (registering appends without that).
    private var bindings: [CommandBinding] {
        get { storage }
        set {
            storage = newValue
            reindex()
        }
    }
    /// The bindings by key and by phrase, each with its place in `bindings`, and how many each owner has: a
    /// new binding is checked against the few that share its key or a phrase, not against all of them.
    private var byKey: [Key: [(Int, CommandBinding)]] = [:]
    private var byPhrase: [String: [(Int, CommandBinding)]] = [:]
    private var ownedCount: [String: Int] = [:]
    /// Closed lists of words that may follow a phrase (assist.input/1 `set_choices`), by normalised phrase.
    package private(set) var choices: [String: ArgumentChoices] = [:]
    /// Questions asked before a command acts (`set_confirmation`), by owner and command id.
    private var confirmations: [String: String] = [:]

    /// Creates a router holding the built-in commands with their English labels (or `labels`, by label key), and
    /// `words` typed or said for them in the session's language before the English ones ("detener" for stop):
    /// help names the first.
    package init(labels: [String: String] = [:], words: [String: [String]] = [:]) {
        // (id, label key, English label, key, phrases), in the order a key or phrase is looked up.
        let table: [(String, String, String, Key?, [String])] = [
            ("next", "next", "Next", .right, ["next", "n"]),
            ("previous", "previous", "Previous", .left, ["previous", "prev", "back", "p"]),
            (Self.pauseToggle, "pause", "Pause or resume", .space, []),
            ("pause", "pause", "Pause", nil, ["pause"]),
            ("resume", "resume", "Resume", nil, ["resume", "continue"]),
            ("faster", "faster", "Faster", .character("]"), ["faster"]),
            ("slower", "slower", "Slower", .character("["), ["slower"]),
            ("repeat", "repeat", "Repeat", .character("r"), ["repeat", "again", "r"]),
            ("stop", "stop", "Stop", .escape, ["stop", "quit", "exit", "cancel", "q"]),
            ("help", "help", "Help", .character("h"), ["help", "h", "?"]),
            (Self.whatCanISay, Self.whatCanISay, "What can I say", nil, ["what can i say", "what can i say?"]),
            (Self.tutorial, Self.tutorial, "Tour of Assist", nil, ["help tutorial"]),
            // Second keys for the same commands, for keyboards and terminals without arrows or Escape.
            ("stop", "stop", "Stop", .character("q"), []),
            ("help", "help", "Help", .function(1), []),
            ("help", "help", "Help", .character("?"), []),
            ("next", "next", "Next", .character("n"), []),
            ("previous", "previous", "Previous", .character("p"), []),
            ("repeat", "repeat", "Repeat", .control("r"), []),
            // On a terminal the console opens the line itself; a "/" that reaches the router came from a pipe.
            (Self.typeCommand, Self.typeCommand, "Type a command", LineEditor.commandKey, []),
        ]
        var given: Set<String> = []
        bindings = table.map { id, labelKey, english, key, phrases in
            // The session's words go with the first binding of each command (the one with its English words).
            let local = phrases.isEmpty || !given.insert(id).inserted ? [] : (words[id] ?? []).map(Self.normalise)
            return CommandBinding(
                id: id, label: labels[labelKey] ?? english, key: key,
                phrases: local + phrases.filter { !local.contains($0) }, scope: .focused, owner: Self.hostOwner)
        }
    }

    /// Builds the indexes from `bindings` again (after a removal).
    private mutating func reindex() {
        byKey = [:]
        byPhrase = [:]
        ownedCount = [:]
        for (place, binding) in bindings.enumerated() { index(binding, at: place) }
    }

    private mutating func index(_ binding: CommandBinding, at place: Int) {
        if let key = binding.key { byKey[key, default: []].append((place, binding)) }
        for phrase in Set(binding.phrases) { byPhrase[phrase, default: []].append((place, binding)) }
        ownedCount[binding.owner, default: 0] += 1
    }

    /// How many commands `owner` has now.
    package func count(owner: String) -> Int { ownedCount[owner] ?? 0 }

    /// The command that says the phrases heard now, in this focus.
    package static let whatCanISay = "what-can-i-say"

    /// The command that gives the spoken tour of Assist ("help tutorial").
    package static let tutorial = "tutorial"

    /// Commands that act before the question asked takes the words: they are no answer to it.
    package static let beforeQuestions: Set<String> = [whatCanISay, tutorial]

    /// The command the command key ("/") stands for in help: typing a command on a line of its own.
    package static let typeCommand = "type-command"

    /// Lower-cases, trims and folds runs of white space, so typed and spoken words compare equal.
    package static func normalise(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Every binding, host ones first.
    package var allBindings: [CommandBinding] { bindings }

    /// One line of help: a command with every key and the first words that trigger it.
    package struct HelpEntry: Equatable, Sendable {
        package var id: String
        package var label: String
        package var keys: [Key]
        package var phrase: String?
    }

    /// What help lists while `owner` has the focus: the host's commands, then the owner's, one entry per
    /// command with all its keys. A key or word the owner took over is not listed for the host's command too
    /// (the survey's "No: n" and the host's "Next: n" both listed n), a host command left with neither is not
    /// listed, and the owner's commands with one label are one line ("Continue: Enter, "continue"", with the
    /// "next" and "ok" that also go on; nineteen "Choose option N" lines were one each).
    package func help(for owner: String?) -> [HelpEntry] {
        let owned = owner.map { owner in bindings.filter { $0.owner == owner } } ?? []
        let takenKeys = Set(owned.compactMap(\.key))
        let takenPhrases = Set(owned.flatMap(\.phrases))
        var entries: [HelpEntry] = []
        var hostIDs: Set<String> = []
        for binding in bindings where binding.owner == owner || binding.owner == Self.hostOwner {
            if binding.id == "pause" || binding.id == "resume" { continue }
            let host = binding.owner == Self.hostOwner
            let key = host && binding.key.map(takenKeys.contains) == true ? nil : binding.key
            let phrases = host ? binding.phrases.filter { !takenPhrases.contains($0) } : binding.phrases
            if host { hostIDs.insert(binding.id) }
            let same = entries.firstIndex {
                $0.id == binding.id || (!host && !hostIDs.contains($0.id) && $0.label == binding.label)
            }
            if let index = same {
                if let key, !entries[index].keys.contains(key) { entries[index].keys.append(key) }
                if entries[index].phrase == nil { entries[index].phrase = phrases.first }
            } else {
                entries.append(
                    HelpEntry(id: binding.id, label: binding.label, keys: key.map { [$0] } ?? [], phrase: phrases.first)
                )
            }
        }
        // A host command whose every key and word the owner took over is the owner's now.
        return entries.filter { !hostIDs.contains($0.id) || !$0.keys.isEmpty || $0.phrase != nil }
    }

    /// Help's letter `h`, and only the key (F1, `?` and the word "help" stay help's): a document reader moves by
    /// heading with h and H, as screen readers do in a page (issue 70).
    static func mayTakeOver(_ existing: CommandBinding, key sameKey: Bool, _ sharedPhrases: Set<String>) -> Bool {
        existing.id == "help" && existing.key == .character("h") && sameKey && sharedPhrases.isEmpty
    }

    /// Adds a plugin's command. Throws when it tries to take a reserved command, key or phrase, or collides.
    package mutating func register(_ binding: CommandBinding) throws(RouterError) {
        guard binding.owner != Self.hostOwner else { throw .reserved(binding.id) }
        if Self.reservedCommands.contains(binding.id) { throw .reserved(binding.id) }
        // Only the bindings that share its key or a phrase can clash with it, in the order they were added.
        var sharing = binding.key.map { byKey[$0] ?? [] } ?? []
        for phrase in Set(binding.phrases) { sharing += byPhrase[phrase] ?? [] }
        var seen = Set<Int>()
        let candidates = sharing.sorted { $0.0 < $1.0 }.filter { seen.insert($0.0).inserted }.map(\.1)
        for existing in candidates {
            let sameKey = binding.key != nil && existing.key == binding.key
            let sharedPhrases = Set(existing.phrases).intersection(binding.phrases)
            guard sameKey || !sharedPhrases.isEmpty else { continue }
            let what = sameKey ? (binding.key?.description ?? "") : (sharedPhrases.first ?? "")
            if existing.owner == Self.hostOwner {
                if Self.reservedCommands.contains(existing.id)
                    && !Self.mayTakeOver(existing, key: sameKey, sharedPhrases)
                {
                    throw .reserved(what)
                }
                continue  // a feature may take over a built-in key or phrase while focused
            }
            if existing.owner == binding.owner || existing.scope == .global || binding.scope == .global {
                throw .taken(what, by: existing.owner)
            }
        }
        appendIndexed(binding)
    }

    /// Appends without rebuilding the indexes (`bindings`' observer would, for every binding).
    private mutating func appendIndexed(_ binding: CommandBinding) {
        storage.append(binding)
        index(binding, at: storage.count - 1)
    }

    /// Adds a command of the host's own that only some sessions have (the per-person kiosk's "I'm done"),
    /// looked up after the built-in ones. Its id must be new.
    package mutating func addHostCommand(id: String, label: String, phrases: [String]) {
        guard !bindings.contains(where: { $0.id == id }) else { return }
        bindings.append(
            CommandBinding(id: id, label: label, key: nil, phrases: phrases, scope: .focused, owner: Self.hostOwner))
    }

    /// Removes every binding of `owner` with command `id` (all of them when `id` is nil), and the question
    /// asked before it.
    package mutating func unregister(owner: String, id: String? = nil) {
        bindings.removeAll { $0.owner == owner && (id == nil || $0.id == id) }
        confirmations = confirmations.filter { key, _ in
            !(key.hasPrefix(owner + "\u{0}") && (id == nil || key == owner + "\u{0}" + (id ?? "")))
        }
    }

    /// Sets (or, with no choices, removes) the closed list of words that may follow `phrase`; a list another
    /// owner set for the same phrase is `.taken`.
    package mutating func setChoices(_ list: ArgumentChoices) throws(RouterError) {
        if let existing = choices[list.phrase], existing.owner != list.owner {
            throw .taken(list.phrase, by: existing.owner)
        }
        choices[list.phrase] = list.choices.isEmpty ? nil : list
    }

    /// Forgets every list `owner` set (its library was unloaded).
    package mutating func forgetChoices(owner: String) {
        choices = choices.filter { $0.value.owner != owner }
    }

    /// The list of words that may follow the start of `words` ("find object cup" → find object's), and the
    /// phrase it follows: the longest phrase that begins `words`.
    package func choices(after words: String) -> ArgumentChoices? {
        let text = Self.normalise(words)
        return choices.values.filter { text == $0.phrase || text.hasPrefix($0.phrase + " ") }
            .max { $0.phrase.count < $1.phrase.count }
    }

    /// Asks `question` before `owner`'s command `id` acts (nil: no longer).
    package mutating func setConfirmation(owner: String, id: String, question: String?) {
        confirmations[owner + "\u{0}" + id] = question
    }

    /// The question to ask before `command` acts, if its owner set one.
    package func confirmation(for command: RoutedCommand) -> String? {
        confirmations[command.owner + "\u{0}" + command.id]
    }

    /// The command for `event` while `focused` (a plugin id or nil) has the focus, or nil when none matches.
    package func resolve(_ event: InputEvent, focused: String?) -> RoutedCommand? {
        switch event {
        case .key(let key):
            return match(focused: focused) { $0.key == key }.map { RoutedCommand(id: $0.id, owner: $0.owner) }
        case .line(let text), .phrase(let text):
            let words = Self.normalise(text)
            guard !words.isEmpty else { return nil }
            if let exact = match(focused: focused, where: { $0.phrases.contains(words) || $0.id == words }) {
                return RoutedCommand(id: exact.id, owner: exact.owner)
            }
            // A phrase followed by more words: the rest is the argument ("find cup").
            for binding in candidates(focused: focused) {
                for phrase in binding.phrases where words.hasPrefix(phrase + " ") {
                    let argument = String(words.dropFirst(phrase.count + 1))
                    return RoutedCommand(id: binding.id, owner: binding.owner, argument: argument)
                }
            }
            return nil
        case .endOfInput:
            return RoutedCommand(id: "stop", owner: Self.hostOwner)
        case .typing:
            return nil
        }
    }

    /// A plugin's global command for `event` (a running background feature's "sync photos now"), or nil.
    /// These come before an open menu or question, as launch keywords do.
    package func resolveGlobal(_ event: InputEvent) -> RoutedCommand? {
        let global = bindings.filter { $0.scope == .global && $0.owner != Self.hostOwner }
        switch event {
        case .key(let key):
            return global.first { $0.key == key }.map { RoutedCommand(id: $0.id, owner: $0.owner) }
        case .line(let text), .phrase(let text):
            let words = Self.normalise(text)
            guard !words.isEmpty else { return nil }
            if let exact = global.first(where: { $0.phrases.contains(words) }) {
                return RoutedCommand(id: exact.id, owner: exact.owner)
            }
            // The longest phrase wins: "photo sensor label kitchen" is the label command, not "photo sensor".
            let prefixed = global.flatMap { binding in
                binding.phrases.filter { words.hasPrefix($0 + " ") }.map { (binding, $0) }
            }
            guard let (binding, phrase) = prefixed.max(by: { $0.1.count < $1.1.count }) else { return nil }
            return RoutedCommand(
                id: binding.id, owner: binding.owner, argument: String(words.dropFirst(phrase.count + 1)))
        case .typing, .endOfInput:
            return nil
        }
    }

    /// Candidates in precedence order: the focused feature's, then global ones, then the host's.
    private func candidates(focused: String?) -> [CommandBinding] {
        let own = bindings.filter { $0.owner == focused && focused != nil }
        let global = bindings.filter { $0.scope == .global && $0.owner != focused && $0.owner != Self.hostOwner }
        let host = bindings.filter { $0.owner == Self.hostOwner }
        // Help's h comes after the focused feature's own keys: a document reader may have taken it.
        let takeable = host.filter { $0.id == "help" && $0.key == .character("h") }
        let reserved = host.filter { Self.reservedCommands.contains($0.id) && !takeable.contains($0) }
        let rest = host.filter { !Self.reservedCommands.contains($0.id) }
        return reserved + own + global + takeable + rest
    }

    private func match(focused: String?, where predicate: (CommandBinding) -> Bool) -> CommandBinding? {
        candidates(focused: focused).first(where: predicate)
    }
}

/// Why a command could not be registered.
package enum RouterError: Error, Equatable, Sendable {
    /// The command, key or phrase belongs to the host.
    case reserved(String)
    /// The key or phrase is already bound by another owner.
    case taken(String, by: String)
}
