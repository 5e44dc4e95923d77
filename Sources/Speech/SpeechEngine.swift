/// What the host and plugins ask of speech, whichever engine speaks: espeak-ng through the host's own mixer
/// (`SpeechService`, the default) or the user's Speech Dispatcher (`SpeechDispatcherService`, chosen with
/// `speech.backend = "speech-dispatcher"`). Every method is callable from any thread.
package protocol SpeechEngine: Speaker {
    /// Stops utterance `id` if `owner` asked for it; false when it is not known.
    func stop(id: UInt64, owner: Int) -> Bool
    /// Stops every utterance of `owner`; returns how many.
    func cancel(owner: Int) -> Int
    /// Pauses `owner`'s speech; false when it had nothing to pause.
    func pause(owner: Int) -> Bool
    /// Resumes `owner`'s speech at the word that was being heard.
    func resume(owner: Int)
    /// True while `owner` is paused.
    func isPaused(owner: Int) -> Bool
    /// Holds what is being said while voice listens for a command (the push-to-talk key is down), to go on
    /// from its current word after `endListeningHold`; the host's answer to the command is still spoken.
    func holdForListening()
    /// Lets what `holdForListening` held go on.
    func endListeningHold()
    /// True while anything is being spoken.
    var isSpeaking: Bool { get }
    /// Drops `owner`'s callbacks; its speech may finish but reports nothing.
    func detach(owner: Int)
    /// Ends the engine's threads or connection.
    func shutdown()
    /// Sets the rate of utterances that name none, and the volume where the engine sets it (the user's
    /// settings, changed while Assist runs). Any thread.
    func configure(wordsPerMinute: Int?, volume: Double?)
    /// Sets the user's voice (`speech.voice`: standard, female, classic) where the engine has them. Any thread.
    func configure(voice: String)
}

extension SpeechService: SpeechEngine {}
