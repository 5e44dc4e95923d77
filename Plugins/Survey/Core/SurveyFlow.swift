/// Where a participant is in a survey and what they chose: everything a draft must keep to resume at the
/// same question (spec §3.15). Plain data, saved as JSON after every item.
public struct FlowState: Codable, Sendable, Equatable {
    /// The parts asked in this session, in definition order ("initial" only until it has been uploaded once).
    public var parts: [String]
    /// The item being asked.
    public var current: String
    /// Items answered before it, in the order asked: Backspace walks back along them.
    public var history: [String] = []
    /// The chosen option keys, the accepted recording's file name, or the location, per item id. Kept when
    /// going back, so an answer changed later starts from the earlier one.
    public var selections: [String: [String]] = [:]

    public init(parts: [String], current: String, history: [String] = [], selections: [String: [String]] = [:]) {
        self.parts = parts
        self.current = current
        self.history = history
        self.selections = selections
    }
}

/// The survey's navigation, free of sound and storage: items in order, follow-ups inserted where an option's
/// `then` names them, multi-choice rules, and going back with answers kept.
public struct SurveyFlow: Sendable {
    public let definition: SurveyDefinition
    public private(set) var state: FlowState

    /// What moving on did.
    public enum Advance: Equatable, Sendable {
        /// Now asking this item.
        case asking(String)
        /// A multi item needs at least `min` choices, a single item one.
        case needsChoice(minimum: Int)
        /// A recording item has no accepted take yet.
        case needsRecording
        /// The last item is answered.
        case finished
        /// The gate was declined: the session ends and nothing is kept.
        case declined
    }

    /// Starts at the first item of `parts`; nil when they hold no item.
    public init?(definition: SurveyDefinition, parts: [String]) {
        let main = definition.parts.filter { parts.contains($0.id) }.flatMap(\.items).filter { !$0.followUp }
        guard let first = main.first else { return nil }
        self.definition = definition
        self.state = FlowState(parts: definition.parts.map(\.id).filter(parts.contains), current: first.id)
    }

    /// Resumes a saved state; nil when it no longer fits the definition.
    public init?(definition: SurveyDefinition, resuming state: FlowState) {
        guard definition.item(state.current) != nil, state.history.allSatisfy({ definition.item($0) != nil }) else {
            return nil
        }
        self.definition = definition
        self.state = state
    }

    /// The items asked in order, follow-ups left out.
    public var mainItems: [SurveyItem] {
        definition.parts.filter { state.parts.contains($0.id) }.flatMap(\.items).filter { !$0.followUp }
    }

    /// The item being asked (the initialisers make sure it exists).
    public var current: SurveyItem {
        definition.item(state.current) ?? definition.items[0]
    }

    /// "Question k of n": a follow-up shares its question's number.
    public var position: (number: Int, count: Int) {
        // A text to hear (privacy, instructions) is no question: it takes no number.
        let main = mainItems.filter { $0.kind != .info }
        let anchor = anchorID
        return ((main.firstIndex { $0.id == anchor } ?? 0) + 1, main.count)
    }

    /// The last main item on the way to the current one.
    private var anchorID: String {
        for id in ([state.current] + state.history.reversed()) where definition.item(id)?.followUp == false {
            return id
        }
        return state.current
    }

    public func selection(_ itemID: String) -> [String] { state.selections[itemID] ?? [] }

    public var canGoBack: Bool { !state.history.isEmpty }

    /// Single: chooses option `index` (0-based). Returns the option, or nil when there is none.
    public mutating func choose(_ index: Int) -> SurveyOption? {
        let item = current
        guard item.options.indices.contains(index) else { return nil }
        state.selections[item.id] = [item.options[index].key]
        return item.options[index]
    }

    /// What toggling did to a multi item.
    public struct Toggle: Equatable, Sendable {
        public var option: SurveyOption
        public var isOn: Bool
        /// Other answers were cleared by an exclusive choice.
        public var clearedOthers: Bool
    }

    /// Multi: toggles option `index`, applying the exclusive rule both ways.
    public mutating func toggle(_ index: Int) -> Toggle? {
        let item = current
        guard item.options.indices.contains(index) else { return nil }
        let option = item.options[index]
        var chosen = Set(selection(item.id))
        var cleared = false
        if chosen.contains(option.key) {
            chosen.remove(option.key)
        } else if option.exclusive {
            cleared = !chosen.isEmpty
            chosen = [option.key]
        } else {
            let exclusive = Set(item.options.filter(\.exclusive).map(\.key))
            chosen.subtract(exclusive)
            chosen.insert(option.key)
        }
        state.selections[item.id] = item.options.map(\.key).filter(chosen.contains)
        return Toggle(option: option, isOn: chosen.contains(option.key), clearedOthers: cleared)
    }

    /// Records a free answer: an accepted take's file name, or a location (nil clears it).
    public mutating func setValue(_ value: String?, for itemID: String) {
        state.selections[itemID] = value.map { [$0] }
    }

    /// Moves on from the current item if it is answered.
    public mutating func advance() -> Advance {
        let item = current
        let chosen = selection(item.id)
        switch item.kind {
        case .single where chosen.isEmpty: return .needsChoice(minimum: 1)
        case .multi where chosen.count < item.minimumChoices: return .needsChoice(minimum: item.minimumChoices)
        case .recording where chosen.isEmpty: return .needsRecording
        default: break
        }
        let target =
            item.options.first { chosen.contains($0.key) && $0.then != nil }?.then ?? nextMain(after: anchorID)
        guard let target else { return .finished }
        state.history.append(item.id)
        state.current = target
        return .asking(target)
    }

    /// The gate's decline.
    public func decline() -> Advance { .declined }

    /// Goes back one item, answers kept; false at the first.
    public mutating func back() -> Bool {
        guard let previous = state.history.popLast() else { return false }
        state.current = previous
        return true
    }

    private func nextMain(after id: String) -> String? {
        let main = mainItems
        guard let index = main.firstIndex(where: { $0.id == id }), index + 1 < main.count else { return nil }
        return main[index + 1].id
    }

    /// The answers along the path taken, per part id: field → stored value (option keys joined with `,` in
    /// definition order; a follow-up's key replaces its question's). Items left on an abandoned branch do
    /// not count.
    public var answers: [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for id in state.history + [state.current] {
            guard let item = definition.item(id), let field = item.field, let part = definition.part(of: id) else {
                continue
            }
            let chosen = selection(id)
            guard !chosen.isEmpty else { continue }
            result[part.id, default: [:]][field] = chosen.joined(separator: ",")
        }
        return result
    }
}
