/// Phrases heard and not yet sure, and those reported in the last 2 s. Another spoken form of a phrase already
/// heard, or another search's phrase over most of the same sound, counts once; a phrase that lies inside a longer
/// one is dropped when the longer one is heard over it.
package struct HeldPhrases: Sendable {
    /// Heard, waiting to be sure.
    package var held: [Detection] = []
    /// Reported in the last 2 s.
    package private(set) var recent: [Detection] = []

    package init() {}

    /// Whether `detection` was heard already: the same phrase over the same sound, or another phrase (neither
    /// inside the other) over most of it, reported or held.
    package func isRepeat(_ detection: Detection) -> Bool {
        (recent + held).contains {
            ($0.phrase == detection.phrase && $0.startMs <= detection.endMs && detection.startMs <= $0.endMs)
                || (SearchPlan.overlap($0, detection) > 0.5 && !SearchPlan.contains($0.phrase, detection.phrase)
                    && !SearchPlan.contains(detection.phrase, $0.phrase))
        }
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
