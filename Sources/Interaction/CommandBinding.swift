/// Where a command may be used from.
package enum CommandScope: Int32, Sendable {
    /// Only while its feature has the focus.
    case focused = 0
    /// From anywhere in the host, such as a launch keyword.
    case global = 1
}

/// A command and the key and words that trigger it.
package struct CommandBinding: Hashable, Sendable {
    /// The name delivered to the feature (`on_command`): "next", "save-text".
    package var id: String
    /// What help speaks for it: "Save the text".
    package var label: String
    /// The key that triggers it, if any.
    package var key: Key?
    /// The typed or spoken words that trigger it, lower-case, if any.
    package var phrases: [String]
    /// Where it applies.
    package var scope: CommandScope
    /// The plugin id that owns it, or `CommandRouter.hostOwner`.
    package var owner: String

    /// Creates a binding; phrases are normalised.
    package init(id: String, label: String, key: Key?, phrases: [String], scope: CommandScope, owner: String) {
        self.id = id
        self.label = label
        self.key = key
        self.phrases = phrases.map(CommandRouter.normalise).filter { !$0.isEmpty }
        self.scope = scope
        self.owner = owner
    }
}

/// A command the router chose for an input event.
package struct RoutedCommand: Hashable, Sendable {
    /// The command name.
    package var id: String
    /// Its owner: a plugin id or the host.
    package var owner: String
    /// Words typed after a phrase ("find cup" gives argument "cup" for phrase "find"), if any.
    package var argument: String?

    package init(id: String, owner: String, argument: String? = nil) {
        self.id = id
        self.owner = owner
        self.argument = argument
    }
}

/// A closed list of words that may follow a phrase ("find object", then one of 80 names): the voice
/// recogniser listens for exactly these after the phrase.
package struct ArgumentChoices: Sendable, Equatable {
    /// The phrase, normalised.
    package var phrase: String
    /// Said when nothing follows the phrase, before listening for the list a while longer.
    package var prompt: String?
    /// The words, normalised, in the plugin's order.
    package var choices: [String]
    /// The plugin that set it.
    package var owner: String

    package init(phrase: String, prompt: String?, choices: [String], owner: String) {
        self.phrase = CommandRouter.normalise(phrase)
        self.prompt = prompt
        var seen: Set<String> = []
        self.choices = choices.map(CommandRouter.normalise).filter { !$0.isEmpty && seen.insert($0).inserted }
        self.owner = owner
    }
}
