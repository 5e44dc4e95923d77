import Foundation

/// The loudness of each 10 ms of the last 8 s of sound (dB of 16-bit samples), and the rules read from it:
/// whether a phrase followed a pause (always-on listening hears only phrases said on their own), how loud the
/// room is, and where the words after a phrase begin and end. Pure: fed samples or dB values, it answers the
/// same every time (tests give it literal arrays).
package struct LoudnessTrack: Sendable {
    /// The loudness of each 10 ms kept, from frame `base` on (frame N covers ms 10N to 10N+10).
    package private(set) var energies: [Float] = []
    package private(set) var base = 0
    private var remainder: [Int16] = []

    package init() {}

    /// A track of these 10 ms loudnesses, the first at frame `base`.
    package init(energies: [Float], base: Int = 0) {
        self.energies = energies
        self.base = base
    }

    /// How much louder a phrase must be than what comes just before it to follow a pause: than the loudest
    /// 10 ms of the 20–300 ms before it (a short word such as "please" right before the phrase), and than most
    /// of the 150–450 ms before it. Measured on natural voices: phrases said alone were 13 dB or more louder,
    /// with pink noise 10 dB under the speech; the same words inside sentences ("please collect videos for
    /// me", "can you read text messages") and near misses ("the bread is fresh" for "read this") 7 dB or less.
    package static let pauseDecibels: Float = 9

    /// What the user said after a phrase or a question, told by loudness alone (the recogniser cannot say
    /// where open speech ends).
    package enum Utterance: Equatable, Sendable {
        /// Nothing louder than the room yet.
        case none
        /// Speech from `startMs` that has not ended.
        case going(startMs: Int)
        /// Speech from `startMs` to `endMs`, followed by `quietMs` of the room.
        case ended(startMs: Int, endMs: Int)
    }

    /// The room is never taken as quieter than this (10 ms energy in dB of 16-bit samples: an RMS of 80, about
    /// −52 dBFS), so that digital silence or a whisper of noise does not make every breath speech.
    package static let quietestRoom: Float = 38

    /// How long the room must be quiet after speech for it to have ended.
    package static let quietMs = 450

    /// How loud the room is just before `ms` (the median 10 ms of the 150–450 ms before it): a command said
    /// alone follows a pause, so this is the room's noise, against which the words after it are told.
    package func roomLevel(before ms: Int) -> Float? {
        loudness(from: ms / 10 - 45, to: ms / 10 - 15, quantile: 0.5)
    }

    /// Whether something was said from `afterMs` on: 10 ms frames at least 12 dB louder than the room for at
    /// least 120 ms in all are speech, and speech has ended once `quietMs` of frames below that follow it. The
    /// room is the louder of `room` (default: the quietest twentieth of the last 6 s) and the quietest tenth
    /// since `afterMs`: a noise that began after the phrase is no speech.
    package func utterance(after afterMs: Int, room: Float? = nil) -> Utterance {
        let first = max(afterMs / 10, base)
        let last = base + energies.count
        guard last - first > 0, let before = room ?? loudness(from: last - 600, to: last, quantile: 0.05) else {
            return .none
        }
        let level = max(before, loudness(from: first, to: last, quantile: 0.1) ?? before, Self.quietestRoom) + 12
        var start: Int?
        var end = 0
        var loud = 0
        for frame in first..<last where energies[frame - base] >= level {
            if start == nil { start = frame }
            end = frame + 1
            loud += 1
        }
        guard let start, loud >= 12 else { return .none }
        return (last - end) * 10 >= Self.quietMs
            ? .ended(startMs: start * 10, endMs: end * 10) : .going(startMs: start * 10)
    }

    /// Where the answer to a question asked at `nowMs` is listened for from, in a window opened at `openedMs`:
    /// from `nowMs`, or, when speech that began after the window opened goes on now (the question came while
    /// it was being said), from 200 ms before that speech; never before `openedMs`.
    package func answerStart(nowMs: Int, openedMs: Int) -> Int {
        guard openedMs < nowMs, case .going(let start) = utterance(after: openedMs), start < nowMs else { return nowMs }
        return max(openedMs, start - 200)
    }

    /// Whether not even 10 ms louder than the room (by the margin `utterance` uses) was heard from `afterMs` on:
    /// the first sound of a word, which `utterance` does not call speech before 120 ms of it.
    package func isQuiet(after afterMs: Int) -> Bool {
        let first = max(afterMs / 10, base)
        let last = base + energies.count
        guard last - first > 0, let room = loudness(from: last - 600, to: last, quantile: 0.05) else { return true }
        let level = max(room, Self.quietestRoom) + 12
        return !energies[(first - base)...].contains { $0 >= level }
    }

    /// Keeps the loudness of each 10 ms fed, for the last 8 s.
    package mutating func measure(_ samples: [Int16]) {
        let all = remainder + samples
        let whole = all.count / 160 * 160
        for start in stride(from: 0, to: whole, by: 160) {
            var sum: Float = 0
            for sample in all[start..<start + 160] { sum += Float(sample) * Float(sample) }
            energies.append(10 * log10(sum / 160 + 1))
        }
        remainder = Array(all[whole...])
        if energies.count > 800 {
            let drop = energies.count - 800
            energies.removeFirst(drop)
            base += drop
        }
    }

    /// True when a phrase heard from `startMs` to `endMs` (the upper quartile of its loudness) is louder by
    /// `pauseDecibels` than the loudest 10 ms of the 20–300 ms before it and than the upper quartile of the
    /// 150–450 ms before it; true when there is no sound before it to compare.
    package func followsAPause(startMs: Int, endMs: Int) -> Bool {
        let first = startMs / 10
        guard let phrase = loudness(from: first, to: endMs / 10, quantile: 0.75) else { return true }
        let before = [
            loudness(from: first - 30, to: first - 2, quantile: 1),
            loudness(from: first - 45, to: first - 15, quantile: 0.75),
        ]
        guard let loudest = before.compactMap({ $0 }).max() else { return true }
        return phrase - loudest >= Self.pauseDecibels
    }

    /// Whether a phrase heard from `startMs` to `endMs` is followed by a pause: within `tailMs` of the end the
    /// recogniser gives it (which comes early on a word's last sound, the "z" of "pause"), `quietMs` begin whose
    /// loudest tenth is back to the room heard before the phrase (within `roomMarginDecibels`) and
    /// `pauseDecibels` under the phrase. A command said on its own ends so; the same words inside a sentence
    /// ("I texted her", "what time does the film start", "we bought a new kettle" for "pause") run on into
    /// more speech. Nil while too little is kept after it to tell; true when nothing before or in it is.
    package func followedByAPause(startMs: Int, endMs: Int, quietMs: Int) -> Bool? {
        let first = startMs / 10
        let last = endMs / 10
        let span = quietMs / 10
        guard let phrase = loudness(from: first, to: last, quantile: 0.75) else { return true }
        // The room: as heard before the phrase, or the quietest tenth after it where that is louder (a noise
        // that began with the talk, such as a fan or a street).
        let before = loudness(from: first - 45, to: first - 15, quantile: 0.5) ?? phrase - Self.pauseDecibels
        // A pause already heard under the room as it was before the phrase is one the whole rule below finds too
        // (the room heard after the phrase can only raise its ceiling): it is said at once, not when the whole
        // stretch after the phrase is in (which kept every phrase waiting 750 ms, a single word 900).
        let kept = base + energies.count
        let strict = min(phrase - Self.pauseDecibels, max(before, Self.quietestRoom) + Self.roomMarginDecibels)
        for start in last...(last + Self.tailMs / 10) where start + span <= kept {
            if let after = loudness(from: start, to: start + span, quantile: 0.9), after <= strict { return true }
        }
        let horizon = last + Self.tailMs / 10 + span
        guard horizon <= kept else { return nil }
        let after = loudness(from: last, to: horizon, quantile: 0.1) ?? before
        let room = max(before, after, Self.quietestRoom)
        let ceiling = min(phrase - Self.pauseDecibels, room + Self.roomMarginDecibels)
        for start in last...(last + Self.tailMs / 10) {
            guard start + span <= base + energies.count else { return nil }
            if let after = loudness(from: start, to: start + span, quantile: 0.9), after <= ceiling { return true }
        }
        return false
    }

    /// Whether a word heard from `startMs` to `endMs` was said alone: the 450 ms before it quiet (its loudest
    /// tenth `pauseDecibels` under the word: a sentence's pause between words is shorter) and a pause of
    /// `quietMs` after it.
    package func saidAlone(startMs: Int, endMs: Int, quietMs: Int) -> Bool? {
        let first = startMs / 10
        guard let word = loudness(from: first, to: endMs / 10, quantile: 0.75) else { return true }
        if let before = loudness(from: first - 45, to: first - 2, quantile: 0.9), word - before < Self.pauseDecibels {
            return false
        }
        return followedByAPause(startMs: startMs, endMs: endMs, quietMs: quietMs)
    }

    /// Where the voice of a phrase the recogniser heard from `startMs` to `endMs` ends: the first 150 ms after
    /// `endMs` all of which is `endDecibels` under the phrase, or `tailMs` past `endMs` at the latest. The
    /// recogniser ends a phrase early ("sync photos" of "sync photos now", the "fas" of "faster"), and the judge
    /// over Assist's sound needs the whole of it. Nil while too little is kept after it to tell.
    package func voiceEnd(startMs: Int, endMs: Int) -> Int? {
        let last = endMs / 10
        let limit = last + Self.tailMs / 10
        let span = 15
        guard let phrase = loudness(from: startMs / 10, to: last, quantile: 0.75) else { return endMs }
        for start in last...limit {
            guard start + span <= base + energies.count else { return nil }
            if let after = loudness(from: start, to: start + span, quantile: 1), after <= phrase - Self.endDecibels {
                return start * 10
            }
        }
        return limit * 10
    }

    /// How far under a phrase its voice has fallen where it ends (`voiceEnd`).
    package static let endDecibels: Float = 12

    /// How much louder than the room before a phrase the stretch after it may be and still be the room.
    package static let roomMarginDecibels: Float = 9
    /// The pause after a phrase heard at any time, and after a single word (which needs more). 300 ms for a
    /// single word until 2026-11-30: 200 heard the same commands and no more of the sentences on three sets (73
    /// minutes of them), and answers 100 ms sooner (docs/voice.md).
    package static let afterQuietMs = 150
    package static let aloneQuietMs = 200

    /// How far past the recogniser's end of a word its sound may still ring.
    package static let tailMs = 600

    /// The loudness of frames `from..<to` at `quantile` (1 for the loudest), when at least 8 of them are kept.
    /// Asked several times for every 20 ms fed (the room over the last 6 s among them): the frames are copied to
    /// the stack and the one at that rank selected, not sorted into a new array.
    package func loudness(from: Int, to: Int, quantile: Double) -> Float? {
        let low = max(from, base) - base
        let high = min(to, base + energies.count) - base
        guard high - low >= 8 else { return nil }
        let rank = min(high - low - 1, Int(Double(high - low) * quantile))
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: high - low) { frames in
            _ = frames.initialize(fromContentsOf: energies[low..<high])
            return Self.select(rank, in: frames)
        }
    }

    /// The value `values.sorted()[rank]` would give, found by partitioning `values` in place (Hoare's selection:
    /// linear time on average); `values` is left reordered.
    package static func select(_ rank: Int, in values: UnsafeMutableBufferPointer<Float>) -> Float {
        var low = 0
        var high = values.count - 1
        while low < high {
            let pivot = values[low + (high - low) / 2]
            var left = low
            var right = high
            while left <= right {
                while values[left] < pivot { left += 1 }
                while values[right] > pivot { right -= 1 }
                if left <= right {
                    values.swapAt(left, right)
                    left += 1
                    right -= 1
                }
            }
            // low...right are at most the pivot, left...high at least it, and any between equal it.
            if rank <= right {
                high = right
            } else if rank >= left {
                low = left
            } else {
                return values[rank]
            }
        }
        return values[rank]
    }
}
