/// Phrases heard and not yet sure, and those reported in the last 2 s. Another spoken form of a phrase already
/// heard, or another search's phrase over most of the sound of one reported, counts once; another search's phrase
/// over most of the sound of one held is its rival (`rival(of:)`); a phrase that lies inside a longer one is
/// dropped when the longer one is heard over it.
package struct HeldPhrases: Sendable {
    /// Heard, waiting to be sure.
    package var held: [Detection] = []
    /// Reported in the last 2 s.
    package private(set) var recent: [Detection] = []

    package init() {}

    /// Whether `detection` was heard already: the same phrase over the same sound, reported or held, or another
    /// phrase (neither inside the other) over most of it, reported.
    package func isRepeat(_ detection: Detection) -> Bool {
        (recent + held).contains {
            $0.phrase == detection.phrase && $0.startMs <= detection.endMs && detection.startMs <= $0.endMs
        } || recent.contains { Self.areRivals($0, detection) }
    }

    /// A phrase held, not yet reported, that another search heard over most of `detection`'s sound (neither
    /// inside the other): only one of the two was said, and which is the referee's to hear, not the order the
    /// searches reported them in ("I'm done" was heard as "time" first, then as "i am done").
    package func rival(of detection: Detection) -> Detection? {
        held.first { Self.areRivals($0, detection) }
    }

    /// Settles `detection` against a rival held (`rival(of:)`): `hear` decodes the sound of both once as one of
    /// their phrases; the one heard is held, and when neither is, the one held stays. What was decided, for the
    /// trace; nil when `detection` has no rival.
    package mutating func settleRival(of detection: Detection, hear: ([String], Detection) -> String?) -> String? {
        guard let rival = rival(of: detection) else { return nil }
        var both = detection
        both.startMs = min(rival.startMs, detection.startMs)
        both.endMs = max(rival.endMs, detection.endMs)
        let said = hear([rival.phrase, detection.phrase], both).flatMap { $0.isEmpty ? nil : $0 }
        if said == detection.phrase {
            held.removeAll { $0 == rival }
            hold(detection)
        }
        return "\(rival.phrase) and \(detection.phrase) over the same sound: \(said ?? "neither") heard"
    }

    private static func areRivals(_ a: Detection, _ b: Detection) -> Bool {
        a.phrase != b.phrase && SearchPlan.overlap(a, b) > 0.5 && !SearchPlan.contains(a.phrase, b.phrase)
            && !SearchPlan.contains(b.phrase, a.phrase)
    }

    /// Holds `detection`: shorter phrases held inside it over the same sound are dropped, and it is not held when
    /// a longer phrase held lies over it.
    package mutating func hold(_ detection: Detection) {
        held.removeAll { short in
            SearchPlan.contains(detection.phrase, short.phrase) && detection.phrase != short.phrase
                && detection.startMs <= short.endMs && short.startMs <= detection.endMs
        }
        if held.contains(where: {
            SearchPlan.contains($0.phrase, detection.phrase) && SearchPlan.overlap($0, detection) > 0
        }) {
            return
        }
        held.append(detection)
    }

    /// Notes `reported` as heard, and forgets what was reported more than 2 s before `fedMs`.
    package mutating func report(_ reported: [Detection], fedMs: Int) {
        recent = (recent + reported).filter { $0.endMs + 2_000 > fedMs }
    }

    /// Notes `reported` as heard.
    package mutating func report(_ reported: [Detection]) { recent += reported }

    /// Whether anything held or reported lies between `start` and `end` ms.
    package func holds(from start: Int, to end: Int) -> Bool { held.contains { $0.startMs < end && start < $0.endMs } }
    package func reported(from start: Int, to end: Int) -> Bool {
        recent.contains { $0.startMs < end && start < $0.endMs }
    }
}
