/// A question for the user.
package enum DialogRequest: Sendable, Equatable {
    /// Numbered choices; `defaultIndex` is taken on a bare Enter.
    case choice(prompt: String, choices: [String], defaultIndex: Int?)
    /// Yes or no; Enter, cancel and silence for `timeoutMs` (0: never) give `defaultYes`.
    case confirm(prompt: String, defaultYes: Bool, timeoutMs: UInt32)
    /// A line of free text.
    case text(prompt: String, kind: TextKind)
}

/// The kind of free text asked for; raw values are the ABI's `ASSIST_TEXT_*`.
package enum TextKind: Int32, Sendable {
    case plain = 0
    case email = 1
    /// Neither echoed, spoken nor logged.
    case secret = 2
    case number = 3
    /// Plain text that is usually one of the words its plugin listens for after a phrase (its `set_choices`
    /// lists): heard, an answer is judged against them first.
    case listed = 4
}

/// How a dialog ended.
package enum DialogStatus: Sendable, Equatable {
    case answered
    case cancelled
    case timedOut
}

/// The answer to a dialog.
package struct DialogAnswer: Sendable, Equatable {
    /// The id `DialogEngine.open` returned.
    package var request: UInt64
    package var status: DialogStatus
    /// The chosen index for a choice.
    package var index: Int?
    /// The answer to a confirm (its default when cancelled or timed out).
    package var yes: Bool
    /// The text typed, trimmed.
    package var text: String?
}
