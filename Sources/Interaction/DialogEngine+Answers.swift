import Speech

extension DialogEngine {
    func handleChoice(_ event: InputEvent, choices: [String], defaultIndex: Int?) {
        let hint = phrases.text("dialog.choice-hint", ["count": String(choices.count)])
        // A number waiting for a second digit when the input ends (a script's last line, "1", on a list of ten)
        // is the answer: nothing more can follow it.
        if case .endOfInput = event, let number = Int(typedDigits) {
            typedDigits = ""
            cancelDigitPause()
            return pick(number, choices: choices)
        }
        if handleCommon(event, hint: hint) { return }
        switch event {
        case .key(.character(let char)) where char.isASCII && char.isNumber:
            typedDigits.append(char)
            guard let number = Int(typedDigits) else { return }
            // Up to nine choices, one digit answers at once; beyond that a digit that could begin a longer
            // number waits for a second digit, Enter or a pause.
            if choices.count <= 9 || number * 10 > choices.count || number == 0 {
                typedDigits = ""
                cancelDigitPause()
                pick(number, choices: choices)
            } else {
                takeDigitsAfterAPause { [weak self] in
                    guard let self, let waiting = Int(self.typedDigits) else { return }
                    self.typedDigits = ""
                    self.pick(waiting, choices: choices)
                }
            }
        case .key(.backspace):
            typedDigits = String(typedDigits.dropLast())
            if typedDigits.isEmpty { cancelDigitPause() }
        case .key(.up), .key(.down), .key(.home), .key(.end):
            move(event, count: choices.count)
            if let highlighted {
                announcer.say(
                    phrases.text(
                        "dialog.choice-position",
                        [
                            "choice": choices[highlighted], "position": String(highlighted + 1),
                            "count": String(choices.count),
                        ]
                    ),
                    priority: .important, remember: false
                )
            }
        case .key(.enter), .key(.space):
            if let number = Int(typedDigits) {
                typedDigits = ""
                cancelDigitPause()
                pick(number, choices: choices)
            } else if let chosen = highlighted ?? defaultIndex {
                finish(status: .answered, index: chosen, yes: nil, text: nil)
            } else {
                announcer.say(hint, remember: false, group: .hint)
            }
        case .key(.character(let char)) where char.isLetter:
            // A choice written "S: status" is also picked by its letter.
            if let index = Self.choiceIndex(forKey: char, in: choices) {
                finish(status: .answered, index: index, yes: nil, text: nil)
            } else if let index = yesOrNoChoice(char, in: choices) {
                // "Continue? 1. Yes 2. No" takes Y and N as a yes-or-no question does (issue 72, item 8).
                finish(status: .answered, index: index, yes: nil, text: nil)
            } else if char == "h" && hasOwnHelp {
                sayHelp(hint)
            } else {
                announcer.say(hint, remember: false, group: .hint)
            }
        case .line(let text), .phrase(let text):
            let words = CommandRouter.normalise(text)
            if words.isEmpty, let chosen = highlighted ?? defaultIndex {
                finish(status: .answered, index: chosen, yes: nil, text: nil)
            } else if let exact = choices.map(CommandRouter.normalise).firstIndex(of: words) {
                finish(status: .answered, index: exact, yes: nil, text: nil)
            } else if let number = NumberWords.value(words, last: choices.count) {
                // "3", "three", "number fourteen", "the second one", "the last one".
                pick(number, choices: choices)
            } else if words.count == 1, let key = words.first, let index = Self.choiceIndex(forKey: key, in: choices) {
                finish(status: .answered, index: index, yes: nil, text: nil)
            } else if let index = Self.choiceIndex(matching: words, in: choices) {
                finish(status: .answered, index: index, yes: nil, text: nil)
            } else if let step = Self.step(words) {
                // By voice as by arrows: "next", "previous", "next slot", "previous thing".
                handleChoice(.key(step), choices: choices, defaultIndex: defaultIndex)
            } else {
                narrow(to: words, typed: text, choices: choices)
            }
        default:
            announcer.say(hint, remember: false, group: .hint)
        }
    }

    /// Down for "next …", Up for "previous …" (or "back …"), as whole first words; nil otherwise.
    static func step(_ words: String) -> Key? {
        let first = words.split(separator: " ").first.map(String.init) ?? ""
        switch first {
        case "next", "down": return .down
        case "previous", "up": return .up
        default: return nil
        }
    }

    /// The choice `key` answers when the choices are the language's yes and no (Y or N, or the language's keys
    /// for them); nil otherwise.
    func yesOrNoChoice(_ key: Character, in choices: [String]) -> Int? {
        guard choices.count == 2, let yes = yesOrNo(key: key) else { return nil }
        let answers = choices.map { yesOrNo($0) }
        guard Set(answers.compactMap { $0 }) == [true, false] else { return nil }
        return answers.firstIndex(of: yes)
    }

    /// The choice written with `key` and a colon first ("S: status"), if any.
    static func choiceIndex(forKey key: Character, in choices: [String]) -> Int? {
        let prefix = String(key).lowercased() + ":"
        return choices.firstIndex { $0.lowercased().hasPrefix(prefix) }
    }

    func handleConfirm(_ event: InputEvent, defaultYes: Bool) {
        guard let yes = answerYesOrNo(event, defaultYes: defaultYes) else { return }
        finish(status: .answered, index: nil, yes: yes, text: nil)
    }

    /// Yes or no from a key, a typed line or a phrase at a yes-or-no question; nil when it was neither (the hint
    /// is said) or one of the words every question takes (cancel, repeat, help: done here).
    func answerYesOrNo(_ event: InputEvent, defaultYes: Bool) -> Bool? {
        let hint = phrases.text(defaultYes ? "dialog.confirm-hint-yes" : "dialog.confirm-hint-no")
        if handleCommon(event, hint: hint) { return nil }
        switch event {
        case .key(.character(let char)):
            if let yes = yesOrNo(key: char) { return yes }
        case .key(.enter):
            return defaultYes
        case .line(let text), .phrase(let text):
            if CommandRouter.normalise(text).isEmpty { return defaultYes }
            if let yes = yesOrNo(text) { return yes }
        default:
            break
        }
        announcer.say(hint, remember: false, group: .hint)
        return nil
    }

    /// True for the language's key for yes (or Y), false for its key for no (or N), nil for any other key.
    func yesOrNo(key: Character) -> Bool? {
        let lower = String(key).lowercased()
        if phrases.text("dialog.key-yes").contains(lower) || lower == "y" { return true }
        if phrases.text("dialog.key-no").contains(lower) || lower == "n" { return false }
        return nil
    }

    /// True for the language's words for yes, false for its words for no, nil for anything else.
    func yesOrNo(_ text: String) -> Bool? {
        let words = CommandRouter.normalise(text)
        let yesWords = Set(phrases.text("dialog.words-yes").split(separator: "|").map(String.init) + ["yes", "y"])
        let noWords = Set(phrases.text("dialog.words-no").split(separator: "|").map(String.init) + ["no", "n"])
        if yesWords.contains(words) { return true }
        return noWords.contains(words) ? false : nil
    }

    /// The words every question takes, whatever it asks, normalised: cancel, repeat, help and stop, in English
    /// and in the language of `phrases`.
    package static func commonWords(_ phrases: PhraseBook) -> Set<String> {
        let keys = ["dialog.word-cancel", "dialog.word-repeat", "dialog.word-help", "dialog.word-stop"]
        return Set(
            ["cancel", "repeat", "help", "stop"]
                + keys.flatMap { phrases.text($0).split(separator: "|").map { CommandRouter.normalise(String($0)) } })
    }

    /// Whether `text` is one of the words every question takes (or "?").
    func isCommon(_ text: String) -> Bool {
        text.trimmingCharacters(in: .whitespaces) == "?"
            || Self.commonWords(phrases).contains(CommandRouter.normalise(text))
    }

    func handleText(_ event: InputEvent) {
        // Said aloud, "cancel", "repeat", "help" and "stop" do what they do at any question; typed, they are words.
        if case .phrase = event, handleCommon(event, hint: phrases.text("dialog.text-hint-voice")) { return }
        switch event {
        case .key(.escape), .endOfInput:
            finish(status: .cancelled, index: nil, yes: nil, text: nil)
        case .line(let text), .phrase(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.lowercased() == "cancel" {
                finish(status: .cancelled, index: nil, yes: nil, text: nil)
            } else {
                finish(status: .answered, index: nil, yes: nil, text: trimmed)
            }
        default:
            break  // single keys arrive only while the console is switching to line mode; ignore them
        }
    }

    /// The choice whose words equal `words`, or the only one that starts with them, or the only one that
    /// contains them.
    static func choiceIndex(matching words: String, in choices: [String]) -> Int? {
        let normalised = choices.map(CommandRouter.normalise)
        if let exact = normalised.firstIndex(of: words) { return exact }
        let prefixed = normalised.indices.filter { normalised[$0].hasPrefix(words) }
        if prefixed.count == 1 { return prefixed[0] }
        let containing = normalised.indices.filter { normalised[$0].contains(words) }
        return prefixed.isEmpty && containing.count == 1 ? containing[0] : nil
    }

    /// Typed words that pick no single choice filter the list: the choices containing them are said with
    /// their numbers (up to 10), or how many there are.
    private func narrow(to words: String, typed: String, choices: [String]) {
        let count = String(choices.count)
        let containing = choices.indices.filter { CommandRouter.normalise(choices[$0]).contains(words) }
        switch containing.count {
        case 0:
            announcer.say(phrases.text("dialog.no-match", ["text": typed, "count": count]))
        case 1...10:
            announcer.say(phrases.text("dialog.some-match", ["text": typed, "matches": String(containing.count)]))
            for index in containing { announcer.say("\(index + 1). \(choices[index])", remember: false) }
        default:
            announcer.say(
                phrases.text(
                    "dialog.many-match", ["text": typed, "matches": String(containing.count), "count": count]))
        }
    }

    private func pick(_ number: Int, choices: [String]) {
        if (1...max(1, choices.count)).contains(number) && number <= choices.count {
            finish(status: .answered, index: number - 1, yes: nil, text: nil)
        } else {
            announcer.say(phrases.text("dialog.out-of-range", ["count": String(choices.count)]))
        }
    }

    private func move(_ event: InputEvent, count: Int) {
        guard count > 0 else { return }
        let current = highlighted ?? -1
        switch event {
        case .key(.up): highlighted = current <= 0 ? count - 1 : current - 1
        case .key(.down): highlighted = (current + 1) % count
        case .key(.home): highlighted = 0
        case .key(.end): highlighted = count - 1
        default: break
        }
    }
}

extension DialogEngine {
    /// The letters that pick a choice at once ("S: status" → s).
    package static func letterKeys(of choices: [String]) -> Set<Character> {
        Set(
            choices.compactMap { choice in
                let lower = choice.lowercased()
                guard lower.count > 2, let first = lower.first, first.isLetter,
                    lower.dropFirst().first == ":"
                else { return nil }
                return first
            })
    }
}
