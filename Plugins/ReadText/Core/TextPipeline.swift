import OCR

/// From recognised lines to items (read-text.md §5–8): veto, page mode, reading order, sentences. Pure.
public struct TextPipeline: Sendable {
    public var options: ReadTextOptions
    public var builder: SentenceBuilder

    /// By default, the spec's options and English abbreviations.
    public init(options: ReadTextOptions = ReadTextOptions(), builder: SentenceBuilder = SentenceBuilder()) {
        self.options = options
        self.builder = builder
    }

    /// What one recognition produced.
    public struct Result: Equatable, Sendable {
        public var items: [ReadingItem]
        public var columns: Int
        public var vetoed: Bool
    }

    /// `headings`: the page is a document's (a scan), whose lines set larger than its body are its headings.
    public func process(_ observations: [TextObservation], headings: Bool = false) -> Result {
        let vetoed = ConfidenceVeto.rejects(observations.map(\.confidence))
        let kept = options.area == .page ? CentralCluster.keep(observations) : observations
        let (lines, columns) = ReadingOrder.order(kept, mode: options.order)
        let items = headings ? itemsWithHeadings(lines) : builder.items(lines, navigation: options.navigation)
        return Result(items: items, columns: columns, vetoed: vetoed)
    }

    /// How much taller than the body's lines a recognised line must be to be a heading: more than a text layer's
    /// 1.2 (`DocumentHeadings.largerBy`), as a word's box holds its ascenders and descenders or not.
    static let headingTallerBy = 1.3

    /// How tall a recognised line's letters stand: the median of its words' heights (a page turned 2° makes a
    /// long line's box taller by a fortieth of its width, a word's hardly), or its box's without words.
    static func height(_ line: TextObservation) -> Double {
        let words = line.words.map(\.box.height).sorted()
        return words.isEmpty ? line.box.height : words[words.count / 2]
    }

    /// The items of a scanned page's lines: each heading alone, marked as one (`DocumentHeadings`' rule, by the
    /// letters' heights instead of a font's size: short, with letters, not ending as a sentence does, and at least
    /// `headingTallerBy` the height most of the page's letters stand in); the lines between made into sentences.
    func itemsWithHeadings(_ lines: [OrderedLine]) -> [ReadingItem] {
        let body = Self.bodyHeight(lines.map(\.observation))
        var items: [ReadingItem] = []
        var run: [OrderedLine] = []
        for line in lines {
            let text = line.observation.text.trimmingCharacters(in: .whitespaces)
            let last = text.last.map { SentenceBuilder.terminators.contains($0) || $0 == "," || $0 == ";" } ?? true
            guard body > 0, Self.height(line.observation) >= body * Self.headingTallerBy, (2...80).contains(text.count),
                text.contains(where: \.isLetter), !last
            else {
                run.append(line)
                continue
            }
            items += builder.items(run, navigation: options.navigation)
            run = []
            items.append(ReadingItem(text: text, column: line.column, lines: [line.observation.box], heading: true))
        }
        return items + builder.items(run, navigation: options.navigation)
    }

    /// The height most of the page's letters stand in: the median of the lines' `height`s, each counted once per
    /// letter; 0 for a page of fewer than three lines (too few to know its body from its headings).
    static func bodyHeight(_ lines: [TextObservation]) -> Double {
        guard lines.count >= 3 else { return 0 }
        let heights = lines.flatMap { line in
            Array(repeating: height(line), count: line.text.filter { !$0.isWhitespace }.count)
        }.sorted()
        return heights.isEmpty ? 0 : heights[heights.count / 2]
    }

    /// Groups line boxes (from layout analysis) in reading order into blocks to recognise one by one:
    /// consecutive lines of one column with no sentence break between them by their layout
    /// (`SentenceBuilder.breaks`, the whole-page reading's rule), so a sentence never spans two blocks. Returns
    /// each block's lines.
    public func blocks(_ lineBoxes: [TextObservation]) -> (blocks: [[OrderedLine]], columns: Int) {
        let kept = options.area == .page ? CentralCluster.keep(lineBoxes) : lineBoxes
        let (lines, columns) = ReadingOrder.order(kept, mode: options.order)
        var blocks: [[OrderedLine]] = []
        for line in lines {
            if let last = blocks.last?.last, !SentenceBuilder.breaks(between: last, and: line) {
                blocks[blocks.count - 1].append(line)
            } else {
                blocks.append([line])
            }
        }
        return (blocks, columns)
    }
}
