import Foundation
import HostTesting
import SurveyCore
import Testing

/// Definitions are checked at load (spec §3.2): each problem once, naming the item and the fix.
@Suite("survey definitions")
struct DefinitionTests {
    static let shipped = BuildProducts.packageRoot.appendingPathComponent(
        "Plugins/Survey/share/surveys/covid19-sounds.json")

    func problems(_ json: String) -> [String] {
        if case .invalid(let problems) = DefinitionLoader.load(Data(json.utf8)) { return problems.map(\.description) }
        return []
    }

    static func minimal(items: String, adapter: String = "none") -> String {
        #"{"id":"t","version":1,"upload":{"adapter":"\#(adapter)"},"parts":[{"id":"daily","json_name":"daily.json","items":[\#(items)]}]}"#
    }

    @Test func theShippedSurveyIsValidWithTheSpecsExactKeysInThreeLanguages() throws {
        guard case .valid(let definition) = DefinitionLoader.load(contentsOf: Self.shipped) else {
            Issue.record("the shipped definition is invalid")
            return
        }
        #expect(definition.id == "covid19-sounds" && definition.adapter == .covid19Sounds)
        #expect(definition.eligibleAfterSeconds == 169_200)
        func keys(_ field: String) -> [String] {
            definition.items.filter { $0.field == field && !$0.followUp }.flatMap { $0.options.map(\.key) }
        }
        #expect(keys("user_sex") == ["Male", "Female", "Other", "ptns"])
        #expect(
            keys("user_age") == ["pnts", "16-19", "20-29", "30-39", "40-49", "50-59", "60-69", "70-79", "80-89", "90-"])
        #expect(
            keys("medical_history") == [
                "None", "pnts", "asthma", "cystic", "copd", "pulmonary", "lung", "hbp", "angina", "stroke", "heart",
                "valvular", "otherHeart", "diabetes", "cancer", "organ", "hiv", "long",
            ])
        #expect(keys("smoking") == ["never", "ltOnce", "1to10", "11to20", "21+", "ecig", "ex", "ptns"])
        #expect(
            keys("symptoms") == [
                "None", "pnts", "fever", "chills", "drycough", "wetcough", "shortbreath", "tightness", "headache",
                "muscleache", "sorethroat", "runnyblockednose", "smelltasteloss", "dizziness",
            ])
        #expect(keys("covid") == ["statusNeverTested", "statusPositive", "statusNegative", "ptns"])
        #expect(keys("hospital") == ["no", "yes", "ptns"])
        let followUps = definition.items.filter(\.followUp).flatMap { $0.options.map(\.key) }
        #expect(
            Set(followUps) == [
                "neverThinkHadCOVIDNever", "neverThinkHadCOVIDNow", "neverThinkHadCOVIDLast14",
                "neverThinkHadCOVIDOver14", "positiveLast14", "positiveOver14", "negativeNever", "negativeLast14",
                "negativeOver14",
            ])
        #expect(definition.recordings.map(\.file) == ["audio_file_breathe", "audio_file_cough", "audio_file_read"])
        #expect(definition.recordings.map(\.maxSeconds) == [30, 20, 30])
        for item in definition.items {
            for language in ["en", "ru", "zh"] {
                #expect(item.text.byLanguage[language] != nil, "\(item.id) has \(language) text")
                for option in item.options {
                    #expect(option.label.byLanguage[language] != nil, "\(item.id).\(option.key) has \(language)")
                }
            }
        }
    }

    /// The shipped survey opens with its privacy and data-use text; a definition marks at most one such text,
    /// and only an `info` item can be it.
    @Test func thePrivacyTextIsOneInfoItemAndTheShippedSurveyOpensWithIt() throws {
        guard case .valid(let definition) = DefinitionLoader.load(contentsOf: Self.shipped) else {
            Issue.record("the shipped definition is invalid")
            return
        }
        let privacy = try #require(definition.privacyItem)
        #expect(definition.parts.first?.items.first == privacy && privacy.kind == .info)
        let english = privacy.text.byLanguage["en"] ?? ""
        for fact in ["location", "random participant number", "never asked", "deleted", "forget me"] {
            #expect(english.contains(fact), "the privacy text says what it sends and keeps: \(fact)")
        }
        let found = problems(
            Self.minimal(
                items: #"""
                    {"id":"p","type":"info","privacy":true,"text":"P"},
                    {"id":"q","type":"info","privacy":true,"text":"Q"},
                    {"id":"s","type":"single","field":"f","privacy":true,"text":"S?","options":[{"key":"a"}]},
                    {"id":"t","type":"info","privacy":"yes","text":"T"}
                    """#))
        #expect(found.contains("item s: only an info item can be the \"privacy\" text."), "\(found)")
        #expect(
            found.contains("more than one item is marked \"privacy\"; mark the one text to hear again."), "\(found)")
        #expect(found.contains { $0.hasPrefix("item t: \"privacy\" must be") }, "\(found)")
    }

    @Test func aCycleOfFollowUpsIsOneProblemNamingItsPath() {
        let found = problems(
            Self.minimal(
                items: #"""
                    {"id":"a","type":"single","field":"f","text":"A?","options":[{"key":"x","then":"b"}]},
                    {"id":"b","type":"single","field":"f","follow_up":true,"text":"B?","options":[{"key":"y","then":"c"}]},
                    {"id":"c","type":"single","field":"f","follow_up":true,"text":"C?","options":[{"key":"z","then":"b"}]}
                    """#))
        #expect(
            found.filter { $0.contains("cycle") } == [
                "item b: follow-ups form a cycle (b → c → b); one of them must not lead back."
            ])
    }

    @Test func eachBadFieldIsNamedWithItsItemAndFix() {
        let found = problems(
            Self.minimal(
                items: #"""
                    {"id":"q","type":"slider","text":"?"},
                    {"id":"s","type":"single","field":"f","text":"S?","options":[{"key":"a"},{"key":"a"},{"key":"b","then":"nowhere"}]},
                    {"id":"r","type":"recording","field":"r","file":"audio_file_cough","min_s":5,"max_s":3,"text":"Cough"},
                    {"id":"s","type":"info","text":"again"}
                    """#, adapter: "ftp"))
        #expect(found.contains("the upload adapter \"ftp\" is unknown; use covid19-sounds or none."))
        #expect(
            found.contains(
                "item q: the type \"slider\" is unknown; use one of info, gate, single, multi, recording, location."))
        #expect(found.contains("item s: the option key \"a\" is used twice; keys must differ."))
        #expect(found.contains { $0.hasPrefix("item s: option b names \"nowhere\" in then") })
        #expect(found.contains("item r: min_s and max_s must satisfy 1 ≤ min_s < max_s ≤ 600 (they are 5 and 3)."))
        #expect(found.contains("item s: this id is used by two items; give each its own."))
    }

    @Test func duplicateJSONKeysAreFoundThoughParsersHideThem() {
        let found = problems(
            #"{"id":"t","id":"u","version":1,"parts":[{"id":"p","items":[{"id":"i","type":"info","text":"x","text":"y"}]}]}"#
        )
        #expect(found.contains("the key \"id\" appears twice in the top level; keep one of them."))
        #expect(found.contains("the key \"text\" appears twice in parts[1].items[1]; keep one of them."))
    }

    @Test func notJSONAtAllIsOneProblem() {
        #expect(problems("{\"id\": ").count == 1)
        #expect(problems("{\"id\": ").first?.hasPrefix("this is not valid JSON") == true)
    }

    @Test func aMissingTranslationFallsBackToEnglish() {
        let text = LocalizedText(["en": "Cough", "ru": "Кашель"])
        #expect(text.text("ru") == ("Кашель", false))
        #expect(text.text("zh") == ("Cough", true))
    }
}

/// The survey's navigation without sound: exclusive options, minimums, follow-ups and going back.
@Suite("survey flow")
struct SurveyFlowTests {
    func definition() throws -> SurveyDefinition {
        guard case .valid(let definition) = DefinitionLoader.load(contentsOf: DefinitionTests.shipped) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return definition
    }

    @Test func exclusiveOptionsClearOthersBothWaysAndKeysKeepDefinitionOrder() throws {
        var flow = try #require(SurveyFlow(definition: definition(), parts: ["daily"]))
        #expect(flow.current.id == "symptoms")
        #expect(flow.advance() == .needsChoice(minimum: 1))
        _ = flow.toggle(12)  // smelltasteloss
        _ = flow.toggle(2)  // fever
        #expect(flow.selection("symptoms") == ["fever", "smelltasteloss"])
        #expect(flow.toggle(0)?.clearedOthers == true)
        #expect(flow.selection("symptoms") == ["None"])
        _ = flow.toggle(3)
        #expect(flow.selection("symptoms") == ["chills"])
    }

    @Test func aFollowUpWritesItsKeyIntoTheSameFieldAndAnAbandonedBranchDoesNotCount() throws {
        var flow = try #require(SurveyFlow(definition: definition(), parts: ["daily"]))
        _ = flow.toggle(2)
        #expect(flow.advance() == .asking("covid"))
        _ = flow.choose(1)  // statusPositive → covid_positive
        #expect(flow.advance() == .asking("covid_positive"))
        #expect(flow.position.number == 2, "a follow-up shares its question's number")
        _ = flow.choose(0)
        #expect(flow.answers["daily"]?["covid"] == "positiveLast14")
        let wentBack = flow.back()
        #expect(wentBack && flow.current.id == "covid")
        _ = flow.choose(3)  // ptns, no follow-up
        #expect(flow.advance() == .asking("hospital"))
        #expect(flow.answers["daily"]?["covid"] == "ptns")
        #expect(flow.selection("covid_positive") == ["positiveLast14"], "kept in case the participant goes back")
    }

    @Test func resumingAStateThatNoLongerFitsIsRefused() throws {
        let definition = try definition()
        #expect(SurveyFlow(definition: definition, resuming: FlowState(parts: ["daily"], current: "gone")) == nil)
    }
}

/// What a listener could not answer (issue 73, item 4): each passed `survey check` before.
@Suite("survey definitions heard")
struct HeardDefinitionTests {
    func problems(_ json: String) -> [String] {
        if case .invalid(let problems) = DefinitionLoader.load(Data(json.utf8)) { return problems.map(\.description) }
        return []
    }

    static func single(_ options: [String], extra: String = "") -> String {
        DefinitionTests.minimal(
            items: #"{"id":"q","type":"single","field":"f","text":"Which?"\#(extra),"options":["#
                + options.joined(separator: ",") + "]}")
    }

    static func option(_ key: String, _ label: String) -> String { #"{"key":"\#(key)","label":{"en":"\#(label)"}}"# }

    @Test func questionsNobodyCanAnswerByEarAreRefusedEachWithItsFix() throws {
        // 1,000 options in one question.
        let many = problems(Self.single((1...1_000).map { Self.option("o\($0)", "Option \($0)") }))
        #expect(
            many == [
                "item q: it has 1000 options; a question read aloud may have at most 30, so split it into several."
            ])
        // Thirty are still a question.
        #expect(problems(Self.single((1...30).map { Self.option("o\($0)", "Option \($0)") })).isEmpty)
        // Empty labels, read "1, . 2, .".
        let empty = problems(Self.single([Self.option("a", ""), Self.option("b", " . ")]))
        #expect(empty.count == 2 && empty.allSatisfy { $0.contains("empty \"en\" label") }, "\(empty)")
        // Twelve identical labels, and two that differ only in case and spacing.
        let same = problems(Self.single((1...12).map { Self.option("k\($0)", "Yes") }))
        #expect(same.count == 11 && same[0].contains("options k1 and k2 are both read \"Yes\""), "\(same)")
        let alike = problems(Self.single([Self.option("a", "Red cup"), Self.option("b", "RED  cup")]))
        #expect(alike.count == 1 && alike[0].contains("cannot tell them apart"), "\(alike)")
        // A label of 10,000 characters.
        let long = problems(
            Self.single([Self.option("a", String(repeating: "x", count: 10_000)), Self.option("b", "No")]))
        #expect(
            long == [
                "item q: option a has a \"en\" label of 10000 characters; at most 200 can be held while choosing, so shorten it."
            ])
        // A key nothing reads, at every level.
        let unknown = problems(Self.single([Self.option("a", "Yes"), Self.option("b", "No")], extra: #","max":3"#))
        #expect(unknown.count == 1 && unknown[0].hasPrefix("item q: it has the key \"max\", which no survey reads"))
        let misspelt = problems(
            #"{"id":"t","version":1,"titel":"T","upload":{"adapter":"none","entrytype":"x"},"parts":[{"id":"p","item":[],"items":[{"id":"i","type":"info","text":"Hi"}]}]}"#
        )
        #expect(misspelt.contains { $0.hasPrefix("the definition has the key \"titel\"") }, "\(misspelt)")
        #expect(misspelt.contains { $0.hasPrefix("\"upload\" has the key \"entrytype\"") }, "\(misspelt)")
        #expect(misspelt.contains { $0.hasPrefix("part p has the key \"item\"") }, "\(misspelt)")
        // `then` given as a list is said to be one, not that the follow-up is never asked.
        let list = problems(
            DefinitionTests.minimal(
                items:
                    #"{"id":"q","type":"single","field":"f","text":"Which?","options":[{"key":"a","then":["f1"]},{"key":"b"}]},{"id":"f1","type":"single","field":"f","follow_up":true,"text":"And?","options":[{"key":"x"}]}"#
            ))
        #expect(list.first == "item q: \"then\" must be the id of one follow-up item, not a list.", "\(list)")
        // A document name that is a path (written in the submission's folder, sent as the upload's part name).
        for name in ["../../../../escape.json", "/tmp/x.json", "a/b.json", ".hidden.json", "da ily.json", ""] {
            let escape = problems(
                DefinitionTests.minimal(items: #"{"id":"i","type":"info","text":"Hi"}"#).replacingOccurrences(
                    of: #""json_name":"daily.json""#, with: #""json_name":"\#(name)""#))
            #expect(
                escape == [
                    "part daily's json_name \"\(name)\" must be a plain file name of letters, digits, dots, dashes and underscores, such as daily.json."
                ], "\(escape)")
        }
        // The shipped survey passes all of it.
        guard case .valid = DefinitionLoader.load(contentsOf: DefinitionTests.shipped) else {
            Issue.record("the shipped definition is refused")
            return
        }
    }

    @Test func aDefinitionOfElevenMegabytesIsRefusedUnread() throws {
        let folder = try TemporaryDirectory("assist-big-definition")
        let file = folder.path("big.json")
        let option = Self.option("k", String(repeating: "y", count: 1_000))
        let body = Self.single(Array(repeating: option, count: 11_000))
        try Data(body.utf8).write(to: file)
        guard case .invalid(let problems) = DefinitionLoader.load(contentsOf: file) else {
            Issue.record("an 11 MB definition was taken")
            return
        }
        #expect(
            problems.map(\.description) == [
                "the file is 11064 kB; a definition may be at most 1024 kB, so this is not one (or split it into several surveys)."
            ])
    }
}

/// The survey's own settings (issue 73, item 4): a value that cannot be used is named, never ignored.
@Suite("survey settings")
struct SurveySettingsTests {
    @Test func aSettingThatCannotBeUsedIsNamedAndTheDefaultStandsIn() {
        let bad = SurveySettings {
            [
                "sample-rate": "8000", "reminder-time": "25:99", "retry-seconds": "x", "eligible-after-seconds": "-7",
                "manual-location-accuracy-m": "0", "fixed-location": "north", "test-mode": "perhaps",
            ][$0]
        }
        #expect(bad.sampleRate == 44_100 && bad.reminderTime == "09:00" && bad.retrySeconds == [30, 120])
        #expect(bad.eligibleAfterSeconds == nil && bad.manualLocationAccuracy == 1_000 && bad.fixedLocation == nil)
        #expect(
            bad.problems.map(\.key) == [
                "sample-rate", "reminder-time", "eligible-after-seconds", "retry-seconds", "manual-location-accuracy-m",
                "fixed-location", "test-mode",
            ])
        #expect(bad.problems[0] == SurveySettings.Problem(key: "sample-rate", value: "8000", takes: "sample-rate"))
        let good = SurveySettings {
            [
                "sample-rate": "16000", "reminder-time": "7:05", "retry-seconds": "10, 60",
                "eligible-after-seconds": "0",
                "fixed-location": "52.2,0.12", "test-mode": "true",
            ][$0]
        }
        #expect(good.problems.isEmpty)
        #expect(good.sampleRate == 16_000 && good.reminderTime == "07:05" && good.retrySeconds == [10, 60])
        #expect(good.eligibleAfterSeconds == 0 && good.fixedLocation != nil)
        #expect(SurveySettings { _ in nil }.problems.isEmpty)
    }
}
