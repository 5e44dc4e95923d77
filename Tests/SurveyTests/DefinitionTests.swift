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
