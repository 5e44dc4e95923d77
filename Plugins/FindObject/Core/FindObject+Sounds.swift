import PluginKit

extension FindObject {
    /// One step of the sound tour: what is said, then what is played for `milliseconds`.
    struct SoundStep: Sendable {
        var phrase: String
        var play: @Sendable (PluginHostHandle) -> Void
        var milliseconds: UInt32 = 1_600
    }

    /// The tour of what the sounds mean (key t, "explain the sounds"): each pattern said, then played, in the
    /// order a search meets them. The search pauses while it plays and goes on after.
    static let soundSteps: [SoundStep] = [
        SoundStep(phrase: "sound-left") { $0.guidance(.left, intensity: 0.4, pan: -0.8) },
        SoundStep(phrase: "sound-right") { $0.guidance(.right, intensity: 0.4, pan: 0.8) },
        SoundStep(phrase: "sound-above") { $0.guidance(.above, intensity: 0.4, pan: 0) },
        SoundStep(phrase: "sound-below") { $0.guidance(.below, intensity: 0.4, pan: 0) },
        SoundStep(phrase: "sound-closer") { $0.guidance(.left, intensity: 1, pan: -0.3) },
        SoundStep(phrase: "sound-centred") { $0.guidance(.centred, intensity: 1, pan: 0) },
        SoundStep(phrase: "sound-found", play: { $0.play(.found) }, milliseconds: 700),
        SoundStep(phrase: "sound-lost", play: { $0.play(.lost) }, milliseconds: 700),
    ]

    /// Plays the tour; a second press, or the feature stopping, ends it.
    func explainSounds() {
        if touring {
            endTour()
            return
        }
        touring = true
        resumeAfterTour = !paused && mailbox != nil
        if resumeAfterTour { pause() }
        host.cancelSpeech()
        host.speak(
            phrases.text("sounds-intro"), priority: .important,
            onDone: { [self] _, finished in
                guard finished else { return endTour() }
                tourStep(0)
            })
    }

    private func tourStep(_ index: Int) {
        guard touring else { return }
        guard index < Self.soundSteps.count else {
            host.speak(phrases.text("sounds-end"))
            return endTour()
        }
        let step = Self.soundSteps[index]
        host.speak(
            phrases.text(step.phrase), priority: .important,
            onDone: { [self] _, finished in
                guard touring, finished else { return endTour() }
                step.play(host)
                tourTimer = host.addTimer(milliseconds: step.milliseconds, repeating: false) { [self] in
                    tourTimer = nil
                    host.stopCues()
                    tourStep(index + 1)
                }
            })
    }

    /// Ends the tour where it is; a search it paused goes on.
    func endTour() {
        guard touring else { return }
        touring = false
        if let tourTimer { host.cancelTimer(tourTimer) }
        tourTimer = nil
        host.stopCues()
        if resumeAfterTour {
            resumeAfterTour = false
            resume()
        }
    }
}
