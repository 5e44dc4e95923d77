import OCR

/// Streaming recognition (read-text.md §11): layout analysis gives the line boxes, page mode and reading
/// order arrange them into blocks, and each block is recognised a few lines at a time (PSM 6) so the first
/// sentence can be spoken while the rest is still being read. A sentence is handed out once it is final: a
/// terminator followed by more text, or the end of its block; an unfinished one is carried into the next
/// chunk. Runs on the thread that owns the engine.
public struct StreamingRecognizer {
    /// Lines recognised per chunk: few at first so speech starts early, more later for throughput.
    public var firstChunkLines = 2
    public var chunkLines = 6

    public var pipeline: TextPipeline

    public init(pipeline: TextPipeline) {
        self.pipeline = pipeline
    }

    /// What a run found.
    public struct Summary {
        /// Every recognised line, for the final veto.
        public var observations: [TextObservation] = []
        public var columns = 1
        /// True when the first block's veto stopped the run.
        public var vetoed = false
        /// True when the run stopped before reading because the line boxes stand upright: a page on its side.
        public var sideways = false
        /// True when layout analysis found lines, but all of them too small to read.
        public var tooSmall = false
    }

    /// Recognises an 8-bit grey picture; `onItems` receives final items in reading order; `shouldStop` is
    /// checked between chunks. `vetoFirstBlock` stops when the first block's lines (3 or more) fail the veto.
    public func run(
        engine: TesseractEngine, gray: UnsafeRawPointer, width: Int, height: Int, stride: Int, vetoFirstBlock: Bool,
        stopWhenSideways: Bool = false, shouldStop: () -> Bool = { false },
        onItems: ([ReadingItem], _ columns: Int) -> Void
    ) -> Summary {
        let boxes = engine.layoutLines(gray: gray, width: width, height: height, stride: stride)
        let all = boxes.map { box in
            TextObservation(
                text: "",
                box: NormalizedBox(
                    left: box.left, top: box.top, right: box.right, bottom: box.bottom, width: width, height: height),
                confidence: 100)
        }
        let lines = all.filter { $0.box.height >= ReadTextParameters.minimumLineHeight }
        var summary = Summary()
        summary.tooSmall = lines.isEmpty && all.count >= 3
        if stopWhenSideways && Self.looksSideways(lines.map(\.box), width: width, height: height) {
            summary.sideways = true
            return summary
        }
        let (blocks, columns) = pipeline.blocks(Self.withoutContainers(lines))
        summary.columns = columns
        var firstChunk = true
        for (blockIndex, block) in blocks.enumerated() {
            var carry: OrderedLine?
            var start = 0
            var blockObservations: [TextObservation] = []
            while start < block.count {
                if shouldStop() { return summary }
                // With the camera, the first chunk holds the 3 lines the veto needs, so nothing from a picture
                // that is about to be discarded is ever spoken.
                let size = firstChunk ? (vetoFirstBlock ? max(3, firstChunkLines) : firstChunkLines) : chunkLines
                firstChunk = false
                let chunk = Array(block[start..<min(block.count, start + size)])
                let above = start > 0 ? block[start - 1].observation.box : nil
                start += chunk.count
                let below = start < block.count ? block[start].observation.box : nil
                // The region stops halfway to the lines before and after the chunk, so no line is read in two
                // chunks and none falls between them.
                let recognised = engine.recognize(
                    gray: gray, width: width, height: height, stride: stride, mode: .block,
                    region: Self.pixelRegion(chunk, width: width, height: height, above: above, below: below))
                summary.observations += recognised
                blockObservations += recognised
                if vetoFirstBlock, blockIndex == 0, blockObservations.count >= 3, start >= min(block.count, 3),
                    ConfidenceVeto.rejects(blockObservations.map(\.confidence))
                {
                    summary.vetoed = true
                    return summary
                }
                let column = chunk.first?.column ?? 0
                var ordered = recognised.sorted { $0.box.maxY > $1.box.maxY }.map {
                    OrderedLine(observation: $0, column: column)
                }
                if let carry { ordered.insert(carry, at: 0) }
                var items = pipeline.builder.items(ordered, navigation: pipeline.options.navigation)
                carry = nil
                let blockEnds = start >= block.count
                if !blockEnds, pipeline.options.navigation == .sentences, let last = items.popLast(),
                    let lastLine = ordered.last
                {
                    // Not final yet: it may go on in the next chunk.
                    carry = OrderedLine(
                        observation: TextObservation(text: last.text, box: lastLine.observation.box, confidence: 100),
                        column: column)
                }
                if !items.isEmpty { onItems(items, columns) }
            }
        }
        return summary
    }

    /// True when most line boxes are not clearly wider than tall, as the "lines" of a page on its side are
    /// (a line of text is many times wider than tall). Needs 3 boxes.
    public static func looksSideways(_ boxes: [NormalizedBox], width: Int, height: Int) -> Bool {
        guard boxes.count >= 3 else { return false }
        let aspects = boxes.map { ($0.width * Double(width)) / max(1, $0.height * Double(height)) }.sorted()
        return aspects[aspects.count / 2] < 2
    }

    /// Layout analysis sometimes reports a picture region (a page's border, a photo) as one tall "line" around
    /// real lines; recognising it would read those lines twice. A box holding the centres of two or more
    /// other boxes is such a container and is dropped.
    public static func withoutContainers(_ lines: [TextObservation]) -> [TextObservation] {
        lines.filter { outer in
            let held = lines.filter { inner in
                inner.box != outer.box && inner.box.midX > outer.box.minX && inner.box.midX < outer.box.maxX
                    && inner.box.midY > outer.box.minY && inner.box.midY < outer.box.maxY
            }
            return held.count < 2
        }
    }

    /// The pixel rectangle around some line boxes, padded by 1 % of the picture but never past halfway to the
    /// line `above` the first or `below` the last (lines of the same block read in other chunks).
    public static func pixelRegion(
        _ lines: [OrderedLine], width: Int, height: Int, above: NormalizedBox? = nil, below: NormalizedBox? = nil
    ) -> (left: Int, top: Int, width: Int, height: Int) {
        let boxes = lines.map(\.observation.box)
        let padding = 0.01
        let left = max(0, (boxes.map(\.minX).min() ?? 0) - padding)
        let right = min(1, (boxes.map(\.maxX).max() ?? 1) + padding)
        var top = min(1, (boxes.map(\.maxY).max() ?? 1) + padding)
        var bottom = max(0, (boxes.map(\.minY).min() ?? 0) - padding)
        // Halfway between line centres: lines are spaced by at least their height, so this never cuts a line.
        if let above, let first = boxes.map(\.midY).max(), above.midY > first {
            top = min(top, (above.midY + first) / 2)
        }
        if let below, let last = boxes.map(\.midY).min(), below.midY < last {
            bottom = max(bottom, (below.midY + last) / 2)
        }
        let x = Int(left * Double(width))
        let y = Int((1 - top) * Double(height))
        return (x, y, max(1, Int(right * Double(width)) - x), max(1, Int((1 - bottom) * Double(height)) - y))
    }
}
