import Testing
import Voice

/// How phrases are spread over keyphrase searches, and how detections relate: rules on words and times.
@Suite("Search planning")
struct SearchPlanTests {
    func words(_ text: String) -> [String] { KeyPhrase(text).words }

    @Test func phrasesThatCouldBeHeardOverEachOtherAreInSeparateSearches() {
        #expect(SearchPlan.conflict(words("read text"), words("read this")), "same first word, half the shorter")
        #expect(SearchPlan.conflict(words("start photo sensor"), words("stop photo sensor")), "same last two")
        #expect(SearchPlan.conflict(words("what time is it"), words("time")), "one inside the other")
        #expect(!SearchPlan.conflict(words("photo sensor status"), words("start photo sensor")), "shared elsewhere")
        #expect(!SearchPlan.conflict(words("find object"), words("read text")))

        let phrases = ["read text", "read this", "what time is it", "time", "find object", "stop", "help"]
        let groups = SearchPlan.groups(phrases.map { KeyPhrase($0) })
        #expect(groups.count == 2, "\(groups.map { $0.map(\.text) })")
        #expect(groups.first?.first?.text == "what time is it", "longest first")
        for group in groups {
            for (index, a) in group.enumerated() {
                for b in group[(index + 1)...] {
                    #expect(!SearchPlan.conflict(a.words, b.words), "\(a.text), \(b.text)")
                }
            }
        }
        #expect(Set(groups.flatMap { $0.map(\.text) }) == Set(phrases), "every phrase in one search")
    }

    @Test func aPhraseInsideAnotherIsAWholeWordRun() {
        #expect(SearchPlan.contains("what time is it", "time") && SearchPlan.contains("what time is it", "is it"))
        #expect(!SearchPlan.contains("what time is it", "tim") && !SearchPlan.contains("stop", "stop photo sensor"))
    }

    @Test func overlapIsTheShareOfTheShorterDetection() {
        let long = Detection(phrase: "what time is it", startMs: 1000, endMs: 2000, score: 0)
        let inside = Detection(phrase: "time", startMs: 1300, endMs: 1600, score: 0)
        let half = Detection(phrase: "read text", startMs: 1800, endMs: 2200, score: 0)
        let apart = Detection(phrase: "stop", startMs: 2500, endMs: 2800, score: 0)
        #expect(SearchPlan.overlap(long, inside) == 1 && SearchPlan.overlap(inside, long) == 1)
        #expect(SearchPlan.overlap(long, half) == 0.5 && SearchPlan.overlap(long, apart) == 0)
    }
}
