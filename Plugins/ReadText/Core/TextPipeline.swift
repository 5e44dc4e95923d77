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

    /// `scanned`: the page is a document's, whose headings and tables are found (`ScannedPage`).
    public func process(_ observations: [TextObservation], scanned: ScannedPage? = nil) -> Result {
        let vetoed = ConfidenceVeto.rejects(observations.map(\.confidence))
        let kept = options.area == .page ? CentralCluster.keep(observations) : observations
        let (lines, columns) = ReadingOrder.order(kept, mode: options.order)
        let items =
            scanned.map { documentItems(lines, page: $0) } ?? builder.items(lines, navigation: options.navigation)
        return Result(items: items, columns: columns, vetoed: vetoed)
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
