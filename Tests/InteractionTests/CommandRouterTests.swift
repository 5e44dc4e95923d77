import Interaction
import Testing

@Suite("Command routing")
struct CommandRouterTests {
    @Test func builtInsByKeyAndWords() {
        let router = CommandRouter()
        #expect(router.resolve(.key(.right), focused: "a")?.id == "next")
        #expect(router.resolve(.line("  Previous "), focused: "a")?.id == "previous")
        #expect(router.resolve(.key(.space), focused: "a")?.id == CommandRouter.pauseToggle)
        #expect(router.resolve(.key(.escape), focused: nil)?.id == "stop")
        #expect(router.resolve(.phrase("again"), focused: "a")?.id == "repeat")
        #expect(router.resolve(.line("dance"), focused: "a") == nil)
    }

    @Test func aFeatureMayTakeOverABuiltInKeyButNotAReservedOne() throws {
        var router = CommandRouter()
        try router.register(
            CommandBinding(
                id: "record", label: "Record", key: .space, phrases: ["record video"], scope: .focused, owner: "cv"))
        #expect(router.resolve(.key(.space), focused: "cv")?.id == "record")
        #expect(router.resolve(.key(.space), focused: "other")?.id == CommandRouter.pauseToggle)
        #expect(throws: RouterError.reserved("escape")) {
            try router.register(
                CommandBinding(id: "back", label: "Back", key: .escape, phrases: [], scope: .focused, owner: "cv"))
        }
        #expect(throws: RouterError.reserved("help")) {
            try router.register(
                CommandBinding(id: "help", label: "Help", key: nil, phrases: [], scope: .focused, owner: "cv"))
        }
        // Issue 70: help's letter h may be a document's next heading while it is read; F1, ? and "help" stay help.
        try router.register(
            CommandBinding(
                id: "next-heading", label: "Next heading", key: .character("h"), phrases: ["next heading"],
                scope: .focused, owner: "rt"))
        #expect(router.resolve(.key(.character("h")), focused: "rt")?.id == "next-heading")
        #expect(router.resolve(.key(.character("h")), focused: "cv")?.id == "help")
        #expect(router.resolve(.key(.function(1)), focused: "rt")?.id == "help")
        #expect(router.resolve(.key(.character("?")), focused: "rt")?.id == "help")
        #expect(router.resolve(.line("help"), focused: "rt")?.id == "help")
        #expect(throws: RouterError.reserved("h")) {
            try router.register(
                CommandBinding(
                    id: "heading", label: "Heading", key: .character("h"), phrases: ["h"], scope: .focused, owner: "x"))
        }
        #expect(throws: RouterError.reserved("r")) {
            try router.register(
                CommandBinding(
                    id: "read", label: "Read", key: .character("r"), phrases: [], scope: .focused, owner: "x"))
        }
    }

    @Test func collisionsAreRefused() throws {
        var router = CommandRouter()
        try router.register(
            CommandBinding(
                id: "save", label: "Save", key: .control("s"), phrases: ["save text"], scope: .focused, owner: "rt"))
        #expect(throws: RouterError.taken("ctrl+s", by: "rt")) {
            try router.register(
                CommandBinding(
                    id: "other", label: "Other", key: .control("s"), phrases: [], scope: .focused, owner: "rt"))
        }
        // Another feature's focused binding does not collide: only one feature has the focus.
        try router.register(
            CommandBinding(id: "sync", label: "Sync", key: .control("s"), phrases: [], scope: .focused, owner: "ps"))
        try router.register(
            CommandBinding(id: "launch", label: "Read", key: nil, phrases: ["read text"], scope: .global, owner: "rt2"))
        #expect(throws: RouterError.taken("read text", by: "rt2")) {
            try router.register(
                CommandBinding(id: "x", label: "X", key: nil, phrases: ["read text"], scope: .focused, owner: "zz"))
        }
    }

    @Test func wordsAfterAPhraseBecomeTheArgument() throws {
        var router = CommandRouter()
        try router.register(
            CommandBinding(id: "find", label: "Find", key: nil, phrases: ["find"], scope: .focused, owner: "fo"))
        let routed = router.resolve(.line("find Coffee Cup"), focused: "fo")
        #expect(routed == RoutedCommand(id: "find", owner: "fo", argument: "coffee cup"))
    }

    @Test func helpMergesKeysPerCommand() throws {
        var router = CommandRouter()
        try router.register(
            CommandBinding(
                id: "date", label: "Date", key: .character("d"), phrases: ["date"], scope: .focused, owner: "clock"))
        let help = router.help(for: "clock")
        let stop = try #require(help.first { $0.id == "stop" })
        #expect(stop.keys == [.escape, .character("q")])
        #expect(help.last?.id == "date")
        #expect(!help.contains { $0.id == "pause" })
        router.unregister(owner: "clock")
        #expect(!router.help(for: "clock").contains { $0.id == "date" })
    }

    /// A key the feature took over is listed once, as its; its commands with one label are one line; a host
    /// command left with no key or word of its own is not listed (issue 72, item 8).
    @Test func helpListsEachKeyOnceAndOneLineALabel() throws {
        var router = CommandRouter()
        let commands: [(String, String, Key?, String)] = [
            ("no", "No", Key.character("n"), "no"), ("continue", "Continue", Key.enter, "continue"),
            ("continue-ok", "Continue", nil, "ok"), ("choose-1", "Choose by number", Key.character("1"), "1"),
            ("choose-2", "Choose by number", Key.character("2"), "2"),
            ("quick", "Quick", Key.character("]"), "faster"),
        ]
        for (id, label, key, phrase) in commands {
            try router.register(
                CommandBinding(
                    id: id, label: label, key: key, phrases: [phrase], scope: .focused,
                    owner: "survey"))
        }
        let help = router.help(for: "survey")
        #expect(help.first { $0.id == "next" }?.keys == [.right], "n is the survey's No")
        #expect(!help.contains { $0.id == "faster" }, "its key and word are the survey's now")
        #expect(help.filter { $0.label == "Continue" }.count == 1)
        #expect(help.first { $0.label == "Choose by number" }?.keys == [.character("1"), .character("2")])
    }

    @Test func aListOfWordsAfterAPhraseBelongsToOnePluginAndTheLongestPhraseWins() throws {
        var router = CommandRouter()
        try router.setChoices(
            ArgumentChoices(phrase: "Find  Object", prompt: "Which?", choices: ["Cup", "mug", "cup", " "], owner: "fo"))
        try router.setChoices(ArgumentChoices(phrase: "find", prompt: nil, choices: ["anything"], owner: "other"))
        // Normalised, without repeats or empty words.
        #expect(router.choices["find object"]?.choices == ["cup", "mug"])
        #expect(router.choices(after: "find object cup")?.owner == "fo")
        #expect(router.choices(after: "find object")?.owner == "fo")
        #expect(router.choices(after: "find keys")?.owner == "other")
        #expect(router.choices(after: "finder") == nil)
        // Another plugin's list for the same phrase is refused; its owner may replace or remove it.
        #expect(throws: RouterError.self) {
            try router.setChoices(ArgumentChoices(phrase: "find object", prompt: nil, choices: ["x"], owner: "third"))
        }
        try router.setChoices(ArgumentChoices(phrase: "find object", prompt: nil, choices: [], owner: "fo"))
        #expect(router.choices["find object"] == nil)
        router.forgetChoices(owner: "other")
        #expect(router.choices.isEmpty)
    }

    @Test func aQuestionAskedFirstBelongsToItsCommandAndGoesWithIt() throws {
        var router = CommandRouter()
        try router.register(
            CommandBinding(id: "wipe", label: "Wipe", key: nil, phrases: ["wipe"], scope: .focused, owner: "p"))
        router.setConfirmation(owner: "p", id: "wipe", question: "Wipe everything?")
        let wipe = try #require(router.resolve(.phrase("wipe"), focused: "p"))
        #expect(router.confirmation(for: wipe) == "Wipe everything?")
        #expect(router.confirmation(for: RoutedCommand(id: "wipe", owner: "q")) == nil)
        router.unregister(owner: "p", id: "wipe")
        #expect(router.confirmation(for: wipe) == nil)
    }
}
