import CPocketSphinx
import Foundation

/// The last seconds of sound fed, and the decoders beside the searches that decode a span of it once: the
/// referee between rival phrases, the words after a phrase (a grammar of choices, or dictation), and a window's
/// command with the free phone loop it is judged against (`CommandConfidence`). Each is opened when first needed.
final class SpanDecoders {
    private let model: VoiceModel
    private let pronunciations: Pronunciations
    /// True when the dictionary has the word.
    private let knows: (String) -> Bool
    /// Where to write what was decoded (`KeywordSpotter.trace`).
    var trace: ((String) -> Void)?
    /// The last seconds of sound fed, from sample `samplesBase` on.
    private var kept: [Int16] = []
    private var samplesBase = 0
    /// A grammar search that decodes the sound of rival phrases once, choosing one.
    private var referee: OpaquePointer?
    private var refereeGrammar = ""

    init(model: VoiceModel, pronunciations: Pronunciations, knows: @escaping (String) -> Bool) {
        self.model = model
        self.pronunciations = pronunciations
        self.knows = knows
    }

    deinit {
        for decoder in [referee, argumentDecoder, phoneLoop] { if let decoder { assist_spotter_close(decoder) } }
    }

    /// Decodes the sound from `fromMs` to `toMs` once as one of `forms` (the rivals' spoken forms): the form heard;
    /// nil when none is heard or the referee cannot run.
    func rival(_ forms: [String], fromMs: Int, toMs: Int) -> String? {
        guard let range = keptSamples(fromMs: fromMs, toMs: toMs) else { return nil }
        if referee == nil { referee = sideDecoder() }
        guard let referee else { return nil }
        let grammar = "#JSGF V1.0;\ngrammar rivals;\npublic <rival> = " + forms.joined(separator: " | ") + ";\n"
        if grammar != refereeGrammar {
            guard assist_spotter_set_grammar(referee, grammar) == 0 else { return nil }
            refereeGrammar = grammar
        }
        return decodeKept(referee, range)
    }

    /// A second decoder for what follows a phrase: a grammar of `choices` (one of them) or, with nil, the
    /// language model's open text (dictation). Opened when first needed.
    private var argumentDecoder: OpaquePointer?
    private var argumentSearch = ""

    /// Decodes the sound from `fromMs` to `toMs` once, as one of `choices` (normalised, each with every
    /// spoken form the dictionary knows) or, with nil, as open text; nil when nothing fits or the decoder
    /// cannot run (choices with a word the dictionary lacks are left out).
    func decode(fromMs: Int, toMs: Int, choices: [String]?) -> String? {
        guard let range = keptSamples(fromMs: fromMs, toMs: toMs) else { return nil }
        if argumentDecoder == nil { argumentDecoder = sideDecoder() }
        guard let decoder = argumentDecoder else { return nil }
        var forms: [String: String] = [:]
        if let choices {
            let known = choices.filter { KeyPhrase($0).words.allSatisfy(knows) && !KeyPhrase($0).words.isEmpty }
            pronunciations.add(for: Set(known.flatMap { KeyPhrase($0).words }), to: [decoder], side: true)
            for choice in known {
                for form in pronunciations.spokenForms(KeyPhrase(choice).words, side: true) where forms[form] == nil {
                    forms[form] = choice
                }
            }
            guard !forms.isEmpty else { return nil }
            let grammar =
                "#JSGF V1.0;\ngrammar argument;\npublic <argument> = " + forms.keys.sorted().joined(separator: " | ")
                + ";\n"
            if grammar != argumentSearch {
                guard assist_spotter_set_grammar(decoder, grammar) == 0 else { return nil }
                argumentSearch = grammar
            }
        } else {
            guard let languageModel = model.languageModel, model.dictates else { return nil }
            if argumentSearch != "lm" {
                guard assist_spotter_set_language_model(decoder, languageModel.path) == 0 else { return nil }
                argumentSearch = "lm"
            }
        }
        guard let said = decodeKept(decoder, range) else { return nil }
        trace?(
            "decoded \(fromMs)–\(toMs) ms as \(choices == nil ? "open text" : "one of \(choices?.count ?? 0)"): \(said)"
        )
        if choices != nil { return forms[said] }
        let words = KeyPhrase(said.replacingOccurrences(of: "__", with: " ")).words
            .filter { !$0.hasPrefix("<") && !$0.hasPrefix("[") }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// The free phone loop a window's command is judged against (opened when first needed).
    private var phoneLoop: OpaquePointer?

    /// Opens the decoders a judgement needs now rather than at the first one (each loads the acoustic model: the
    /// first "stop" said over Assist's voice was sure 2 s after it was heard, where later ones took 0.1 s).
    func prepareJudge() {
        if argumentDecoder == nil { argumentDecoder = sideDecoder() }
        if phoneLoop == nil { phoneLoop = openPhoneLoop() }
    }

    private func openPhoneLoop() -> OpaquePointer? {
        var error = [CChar](repeating: 0, count: 256)
        let loop = try? PhraseListFile.with(PhraseListFile.probe) { probe in
            assist_spotter_open_phone_loop(model.acousticModel.path, model.dictionary.path, probe, &error, error.count)
        }
        if loop == nil { trace?("no phone loop: \(String(nulTerminated: error))") }
        return loop
    }

    /// Decodes the sound from `fromMs` to `toMs` once as one of `commands` (each with every spoken form the
    /// dictionary knows), with request words allowed around it, and judges how sure that is against the free
    /// phone loop (CommandConfidence): the command and its confidence in 0...1; nil when nothing was heard or
    /// the decoders cannot run, and, given `bareOver` (an utterance, in ms), when request words were heard around
    /// the command or its words are under a third of that utterance (then the phone loop, most of a judgement's
    /// cost, is not run).
    func judge(fromMs: Int, toMs: Int, commands: [String], bareOver utterance: Range<Int>? = nil) -> (
        phrase: String, confidence: Double
    )? {
        guard let range = keptSamples(fromMs: fromMs, toMs: toMs) else { return nil }
        prepareJudge()
        guard let decoder = argumentDecoder, let phoneLoop else { return nil }
        let known = commands.filter { KeyPhrase($0).words.allSatisfy(knows) && !KeyPhrase($0).words.isEmpty }
        let commandWords = Set(known.flatMap { KeyPhrase($0).words })
        pronunciations.add(for: commandWords, to: [decoder], side: true)
        var forms: Set<String> = []
        for command in known { forms.formUnion(pronunciations.spokenForms(KeyPhrase(command).words, side: true)) }
        guard !forms.isEmpty else { return nil }
        let grammar = CommandConfidence.grammar(forms: Array(forms), knows: knows)
        if grammar != argumentSearch {
            guard assist_spotter_set_grammar(decoder, grammar) == 0 else { return nil }
            argumentSearch = grammar
        }
        guard let heard = segments(decoder, range) else { return nil }
        if let utterance {
            // The command alone, no request words, and its words a third of the sound at least (the grammar can
            // take a sentence's other words for silence).
            let words = heard.filter { !$0.isSilence }
            let frames = words.map(\.frames.count).reduce(0, +)
            guard let found = CommandConfidence.find(known, in: words.map(\.plainWord)),
                found.range.count == words.count, frames * 10 * 3 >= utterance.count
            else {
                trace?("window \(fromMs)–\(toMs) ms decoded as \(words.map(\.plainWord)): no command said bare")
                return nil
            }
        }
        guard let loop = segments(phoneLoop, range) else { return nil }
        let verdict = CommandConfidence.judge(grammar: heard, phones: loop) { CommandConfidence.find(known, in: $0) }
        trace?(
            "window \(fromMs)–\(toMs) ms decoded as \(heard.filter { !$0.isSilence }.map(\.plainWord)): "
                + (verdict.map {
                    "\($0.phrase), fit \(String(format: "%.2f", $0.fit)), request words \(String(format: "%.2f", $0.share)), score \(String(format: "%.2f", $0.score)), confidence \(String(format: "%.2f", $0.confidence))"
                } ?? "no command"))
        return verdict.map { ($0.phrase, $0.confidence) }
    }

    /// The segments `decoder`'s search hears in the kept samples `range` (those with frames), decoded once; nil when
    /// it cannot run.
    private func segments(_ decoder: OpaquePointer, _ range: Range<Int>) -> [DecodedSegment]? {
        var found = [assist_segment](repeating: assist_segment(), count: 512)
        let count = kept[range].withUnsafeBufferPointer { samples in
            found.withUnsafeMutableBufferPointer {
                assist_spotter_decode_segments(decoder, samples.baseAddress, samples.count, $0.baseAddress, 512)
            }
        }
        guard count >= 0 else { return nil }
        return found.prefix(Int(count)).compactMap { segment in
            let first = Int(segment.start_frame)
            let last = Int(segment.end_frame)
            guard first >= 0, last >= first else { return nil }
            return DecodedSegment(
                word: String(nulTerminatedTuple: segment.word), frames: first...last, acoustic: Int(segment.acoustic))
        }
    }

    /// The kept samples from `fromMs` to `toMs` (as far as they are kept), when more than 100 ms of them are.
    private func keptSamples(fromMs: Int, toMs: Int) -> Range<Int>? {
        let first = max(0, fromMs * 16 - samplesBase)
        let last = min(kept.count, toMs * 16 - samplesBase)
        return last - first > 1_600 ? first..<last : nil
    }

    /// A decoder beside the searches, for decoding kept sound once, with every frame computed (the searches score
    /// every third: so scored, the referee left one of four "next"s heard as "back", where this one left none) and
    /// the alternate pronunciations the searches have.
    private func sideDecoder() -> OpaquePointer? {
        var error = [CChar](repeating: 0, count: 256)
        let decoder = try? PhraseListFile.with(PhraseListFile.probe) { probe in
            assist_spotter_open_precise(model.acousticModel.path, model.dictionary.path, probe, &error, error.count)
        }
        if let decoder { pronunciations.copy(to: decoder) }
        return decoder
    }

    /// What `decoder`'s search hears in the kept samples `range`, decoded once; nil when it cannot run.
    private func decodeKept(_ decoder: OpaquePointer, _ range: Range<Int>) -> String? {
        var heard = [CChar](repeating: 0, count: 1024)
        let status = kept[range].withUnsafeBufferPointer {
            assist_spotter_decode(decoder, $0.baseAddress, $0.count, &heard, heard.count)
        }
        return status == 0 ? String(nulTerminated: heard) : nil
    }

    /// Keeps at least the last 8 s of sound for the referee: up to 16 s, then the oldest 8 s go at once (moving
    /// 8 s of samples at each 20 ms chunk cost more than a percent of the listening thread).
    func keep(_ samples: [Int16]) {
        kept += samples
        if kept.count > 256_000 {
            let drop = kept.count - 128_000
            kept.removeFirst(drop)
            samplesBase += drop
        }
    }
}
