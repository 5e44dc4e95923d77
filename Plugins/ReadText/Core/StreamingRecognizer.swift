import OCR

/// Streaming recognition (read-text.md §11): layout analysis gives the line boxes, page mode and reading
/// order arrange them into blocks, and each block is recognised a few lines at a time (PSM 6) so the first
/// sentence can be spoken while the rest is still being read. A sentence is handed out once it is final: a
/// terminator followed by more text, or a break the whole-page reading would make there (another column, a
/// wide gap: `SentenceBuilder.breaks`); the last one of a chunk is carried into the next, and only the end of
/// the page ends it otherwise. What it reads is, sentence for sentence, what the whole-page reading reads
/// (issue 70: blocks are cut by the same rule, and a block's recognition keeps only what lies on its lines).
/// Runs on the thread that owns the engine.
public struct StreamingRecognizer {
    /// Lines recognised per chunk: few at first so speech starts early, more later for throughput.
    public var firstChunkLines = 2
    public var chunkLines = 6

    public var pipeline: TextPipeline
    /// What is said before a table's rows; nil: tables are not looked for (the page is read as sentences).
    public var tableIntro: ((_ rows: Int, _ columns: Int) -> String)?

    public init(pipeline: TextPipeline, tableIntro: ((_ rows: Int, _ columns: Int) -> String)? = nil) {
        self.pipeline = pipeline
        self.tableIntro = tableIntro
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
        /// True when the first chunk was found by laying out the picture halved, before the full layout.
        public var firstChunkFromHalvedPicture = false
        /// True when the page may hold a table and was read whole from then on (`readWhole`).
        public var readWhole = false
    }

    /// Recognises an 8-bit grey picture; `onItems` receives final items in reading order; `shouldStop` is
    /// checked between chunks. `vetoFirstBlock` stops when the first block's lines (3 or more) fail the veto.
    ///
    /// First words first (issue 37): on a large picture, layout analysis first runs on the top two fifths of the
    /// picture halved (a tenth of the pixels) to find where reading starts, and the first chunk is recognised
    /// from that at full resolution and handed out; only then is the whole layout worked out at full resolution,
    /// and the rest is read from it, leaving out the lines the first chunk held. Where the halved picture's lines
    /// are too small to trust, or its top part holds none, the layout is worked out once, at full resolution.
    ///
    /// Tables (issue 70): a table is read row by row, as the whole-page reading finds it among all the page's
    /// lines, which a chunk cannot know. Where the page may hold one (its layout has lines side by side in
    /// columns of short cells, or a line recognised in a chunk has words set far apart), nothing more is handed
    /// out from chunks: the page is recognised whole and read as the whole-page reading reads it, after what was
    /// handed out already.
    public func run(
        engine: TesseractEngine, gray: UnsafeRawPointer, width: Int, height: Int, stride: Int, vetoFirstBlock: Bool,
        stopWhenSideways: Bool = false, shouldStop: () -> Bool = { false },
        onItems: ([ReadingItem], _ columns: Int) -> Void
    ) -> Summary {
        let picture = Picture(gray: gray, width: width, height: height, stride: stride)
        var summary = Summary()
        var reading = Reading(
            engine: engine, picture: picture, vetoFirstBlock: vetoFirstBlock,
            chunkSize: vetoFirstBlock ? max(3, firstChunkLines) : firstChunkLines)
        var handedOut: [String] = []
        func hand(_ items: [ReadingItem], _ columns: Int) {
            handedOut += items.map(\.text)
            onItems(items, columns)
        }
        if let coarse = Self.coarseLines(engine: engine, picture: picture) {
            if stopWhenSideways && Self.looksSideways(coarse.map(\.box), width: width, height: height) {
                summary.sideways = true
                return summary
            }
            let (blocks, columns) = pipeline.blocks(Self.withoutContainers(coarse))
            summary.columns = columns
            if let block = blocks.first, !Self.mayGoOnBelowTheHalf(block, chunk: reading.chunkSize),
                !mayHoldATable(coarse, picture: picture)
            {
                let read = readChunk(
                    of: block, from: 0, reading: &reading, summary: &summary, blockIndex: 0, onItems: hand)
                if summary.vetoed { return summary }
                if reading.tableSeen {
                    readWhole(reading: reading, summary: &summary, handedOut: handedOut, onItems: hand)
                    return summary
                }
                reading.alreadyRead = read.region
                reading.carryFromHalvedPicture = reading.carry != nil
                summary.firstChunkFromHalvedPicture = true
                reading.readLines = summary.observations.map(\.box)
                // The first block was judged on its first chunk; the rest is not vetoed again.
                reading.vetoFirstBlock = false
            }
        }
        if shouldStop() { return summary }
        let boxes = engine.layoutLines(gray: gray, width: width, height: height, stride: stride)
        let all = Self.lineObservations(boxes, width: width, height: height)
        var lines = all.filter { $0.box.height >= ReadTextParameters.leastLineHeight(pictureHeight: height) }
        summary.tooSmall = lines.isEmpty && all.count >= 3 && summary.observations.isEmpty
        if reading.alreadyRead == nil, stopWhenSideways,
            Self.looksSideways(lines.map(\.box), width: width, height: height)
        {
            summary.sideways = true
            return summary
        }
        // Containers go before the lines already read do: a region around the first lines would otherwise hold
        // too few of them to be known as one, and be read again as a line.
        lines = Self.withoutContainers(lines)
        if let region = reading.alreadyRead {
            lines.removeAll { line in
                Self.centre(of: line.box, isIn: region)
                    && reading.readLines.contains { Self.centre(of: line.box, isIn: $0) }
            }
        }
        if mayHoldATable(lines, picture: picture) {
            readWhole(reading: reading, summary: &summary, handedOut: handedOut, onItems: hand)
            return summary
        }
        let (blocks, columns) = pipeline.blocks(lines)
        summary.columns = columns
        for (blockIndex, block) in blocks.enumerated() {
            var start = 0
            while start < block.count {
                if shouldStop() { return summary }
                let read = readChunk(
                    of: block, from: start, reading: &reading, summary: &summary, blockIndex: blockIndex,
                    onItems: hand)
                if summary.vetoed { return summary }
                if reading.tableSeen {
                    readWhole(reading: reading, summary: &summary, handedOut: handedOut, onItems: hand)
                    return summary
                }
                start += read.lines
            }
        }
        // A sentence the first chunk left unfinished, with nothing after it at full resolution.
        if let carry = reading.carry {
            let items = pipeline.builder.items([carry], navigation: pipeline.options.navigation)
            if !items.isEmpty { onItems(items, summary.columns) }
        }
        return summary
    }

    /// The page read whole, as the whole-page reading reads it (`TextPipeline.process`, its tables found), and
    /// handed out from the first item that was not handed out already (`handedOut`, their texts in order).
    private func readWhole(
        reading: Reading, summary: inout Summary, handedOut: [String],
        onItems: ([ReadingItem], _ columns: Int) -> Void
    ) {
        let picture = reading.picture
        summary.readWhole = true
        let observations = reading.engine.recognize(
            gray: picture.gray, width: picture.width, height: picture.height, stride: picture.stride,
            minimumLineHeight: ReadTextParameters.leastLineHeight(pictureHeight: picture.height))
        summary.observations = observations
        let result = pipeline.process(observations, scanned: photographedPage(picture))
        summary.columns = result.columns
        // Nothing was handed out yet when the first lines were not judged: the whole page's veto judges them.
        if reading.vetoFirstBlock && result.vetoed && !observations.isEmpty {
            summary.vetoed = true
            return
        }
        var items = result.items[...]
        for text in handedOut {
            guard items.first?.text == text else { break }
            items = items.dropFirst()
        }
        if !items.isEmpty { onItems(Array(items), result.columns) }
    }

    /// The picture as a page whose tables are looked for (its larger lines are not taken for headings); nil when
    /// tables are not looked for.
    func photographedPage(_ picture: Picture) -> ScannedPage? {
        tableIntro.map {
            ScannedPage(width: picture.width, height: picture.height, headings: false, tableIntro: $0)
        }
    }

    /// True when tables are looked for and `mayHoldATable(_:aspect:)`.
    func mayHoldATable(_ lines: [TextObservation], picture: Picture) -> Bool {
        photographedPage(picture).map { Self.mayHoldATable(lines, aspect: $0.aspect) } ?? false
    }

    /// True when layout analysis's line boxes (on a picture `aspect` times as wide as tall) may hold a table: boxes
    /// side by side in rows and in columns, each as short as a table's cell (`DocumentTables`' rule, asked of
    /// boxes whose text is not read yet: as many letters as a box is long in half its height, a letter's usual
    /// width). Two columns of running text are not: their lines are longer than a cell.
    public static func mayHoldATable(_ lines: [TextObservation], aspect: Double) -> Bool {
        let placed = lines.map { line in
            let box = line.box
            let letters = max(1, Int((box.width * aspect / max(box.height / 2, 1e-6)).rounded()))
            return DocumentLine(
                String(repeating: "x", count: min(letters, 1_000)),
                box: DocumentBox(
                    left: box.minX * aspect, top: 1 - box.maxY, right: box.maxX * aspect, bottom: 1 - box.minY))
        }
        return !DocumentTables.find(placed).isEmpty
    }

    /// The picture being read.
    public struct Picture {
        public var gray: UnsafeRawPointer
        public var width: Int
        public var height: Int
        public var stride: Int

        public init(gray: UnsafeRawPointer, width: Int, height: Int, stride: Int) {
            (self.gray, self.width, self.height, self.stride) = (gray, width, height, stride)
        }
    }

    /// What carries from one chunk to the next.
    struct Reading {
        var engine: TesseractEngine
        var picture: Picture
        var vetoFirstBlock: Bool
        var firstChunk = true
        /// Lines in the first chunk: with the camera, the 3 the veto needs, so nothing from a picture that is
        /// about to be discarded is ever spoken.
        var chunkSize: Int
        /// The last sentence of a chunk, not final yet: it may go on in the next chunk.
        var carry: OrderedLine?
        /// The carry came from the halved picture's first chunk.
        var carryFromHalvedPicture = false
        /// Observations of the first block so far, for the veto.
        var blockObservations: [TextObservation] = []
        var blockIndex = -1
        /// Where the coarse pass's first chunk was read (normalised) and the lines recognised there: a line of
        /// the full layout inside both is not read again; one the chunk missed is.
        var alreadyRead: NormalizedBox?
        var readLines: [NormalizedBox] = []
        /// A chunk's recognised line had words set as a table's cells are: the page is read whole.
        var tableSeen = false
    }

    /// Recognises the chunk of `block` starting at `start` and hands out its final items; returns how many lines
    /// it held and the region read (normalised). Sets `summary.vetoed` when the first block's first lines fail
    /// the veto.
    private func readChunk(
        of block: [OrderedLine], from start: Int, reading: inout Reading, summary: inout Summary, blockIndex: Int,
        onItems: ([ReadingItem], _ columns: Int) -> Void
    ) -> (lines: Int, region: NormalizedBox) {
        if blockIndex != reading.blockIndex {
            reading.blockIndex = blockIndex
            reading.blockObservations = []
        }
        let size = reading.firstChunk ? reading.chunkSize : chunkLines
        reading.firstChunk = false
        let chunk = Array(block[start..<min(block.count, start + size)])
        let end = start + chunk.count
        let above = start > 0 ? block[start - 1].observation.box : nil
        let below = end < block.count ? block[end].observation.box : nil
        let picture = reading.picture
        // The region stops halfway to the lines before and after the chunk, so no line is read in two chunks and
        // none falls between them.
        let region = Self.pixelRegion(chunk, width: picture.width, height: picture.height, above: above, below: below)
        let read = (
            chunk.count,
            NormalizedBox(
                left: region.left, top: region.top, right: region.left + region.width,
                bottom: region.top + region.height, width: picture.width, height: picture.height)
        )
        // Only what lies on the chunk's own lines is read out of the region: a block's recognition reads every
        // mark in the rectangle, a book's spine (read "|") or the edge of a facing page among them, which page
        // mode left out of the layout as the whole-page reading leaves them out (issue 70).
        let recognised = reading.engine.recognize(
            gray: picture.gray, width: picture.width, height: picture.height, stride: picture.stride, mode: .block,
            region: region, minimumLineHeight: ReadTextParameters.leastLineHeight(pictureHeight: picture.height)
        ).filter { Self.liesOnALine($0.box, of: chunk) }
        summary.observations += recognised
        reading.blockObservations += recognised
        if reading.vetoFirstBlock, blockIndex == 0, reading.blockObservations.count >= 3, end >= min(block.count, 3),
            ConfidenceVeto.rejects(reading.blockObservations.map(\.confidence))
        {
            summary.vetoed = true
            return read
        }
        // Words set far apart, as a table's cells are: the chunk is not handed out; the page is read whole.
        if let page = photographedPage(picture),
            recognised.contains(where: { TextPipeline.cells($0, aspect: page.aspect).count >= 2 })
        {
            reading.tableSeen = true
            return read
        }
        let column = chunk.first?.column ?? 0
        var ordered = recognised.sorted { $0.box.maxY > $1.box.maxY }.map {
            OrderedLine(observation: $0, column: column)
        }
        // The last sentence so far waits for the next chunk, in this block or the next, which may go on with it:
        // whether it ends is decided as the whole-page reading decides it (`SentenceBuilder.breaks`, from the
        // layout), never by where a chunk or a block happened to end. The halved picture's first chunk numbers
        // its columns by its own layout: its sentence goes on in the column it is read on in.
        if var carry = reading.carry {
            if reading.carryFromHalvedPicture { carry.column = column }
            ordered.insert(carry, at: 0)
        }
        var items = pipeline.builder.items(ordered, navigation: pipeline.options.navigation)
        reading.carry = nil
        reading.carryFromHalvedPicture = false
        if pipeline.options.navigation == .sentences, let last = items.popLast(), let lastLine = ordered.last {
            reading.carry = OrderedLine(
                observation: TextObservation(text: last.text, box: lastLine.observation.box, confidence: 100),
                column: lastLine.column)
        }
        if !items.isEmpty { onItems(items, summary.columns) }
        return read
    }

    /// The smaller side from which a picture is first laid out halved.
    static let coarseFromSide = 1_000
    /// The median line height, in pixels of the halved picture, below which its layout is not trusted.
    static let coarseLeastLineHeight = 10
    /// The share of the picture, from its top, that the coarse pass lays out: reading starts in it on a page
    /// (the full layout reads the rest), and the layout's time goes with the pixels (two fifths: the first audio
    /// came 10 ms sooner than with half, on `bench/read-text.sh`'s page, 2026-12-04).
    static let coarseTopShare = 0.4

    /// True when the first chunk would take all of a coarse block whose last line lies within two line heights
    /// of the part's edge: the block may go on below it, so its last sentence is not known to end there, and
    /// the full layout reads from the start.
    static func mayGoOnBelowTheHalf(_ block: [OrderedLine], chunk: Int) -> Bool {
        guard block.count <= chunk, let lowest = block.map(\.observation.box.minY).min() else { return false }
        let heights = block.map(\.observation.box.height).sorted()
        return lowest - (1 - coarseTopShare) < 2 * heights[heights.count / 2]
    }

    /// Line boxes (normalised to the whole picture, text empty) from layout analysis of the top part of the
    /// picture (`coarseTopShare`) halved, or nil when the picture is small or the halved picture's lines are too few or too small
    /// to trust.
    public static func coarseLines(engine: TesseractEngine, picture: Picture) -> [TextObservation]? {
        let topRows = Int((Double(picture.height) * coarseTopShare).rounded())
        guard min(picture.width, picture.height) >= coarseFromSide,
            let half = PageGeometry.scaled(
                gray: picture.gray, width: picture.width, height: topRows, stride: picture.stride, factor: 0.5)
        else { return nil }
        let boxes = half.pixels.withUnsafeBytes { bytes in
            bytes.baseAddress.map {
                engine.layoutLines(gray: $0, width: half.width, height: half.height, stride: half.width)
            } ?? []
        }
        // The whole picture's height at half size: boxes are measured from the top, which the two share.
        let wholeHeight = Int((Double(half.height) * Double(picture.height) / Double(topRows)).rounded())
        let lines = lineObservations(boxes, width: half.width, height: wholeHeight)
            .filter { $0.box.height >= ReadTextParameters.leastLineHeight(pictureHeight: picture.height) }
        let heights = lines.map { $0.box.height * Double(wholeHeight) }.sorted()
        guard !heights.isEmpty, heights[heights.count / 2] >= Double(coarseLeastLineHeight) else { return nil }
        return lines
    }

    /// Layout analysis's line boxes (pixels, top-left origin) as observations with no text yet.
    public static func lineObservations(
        _ boxes: [(left: Int, top: Int, right: Int, bottom: Int)], width: Int, height: Int
    ) -> [TextObservation] {
        boxes.map { box in
            TextObservation(
                text: "",
                box: NormalizedBox(
                    left: box.left, top: box.top, right: box.right, bottom: box.bottom, width: width, height: height),
                confidence: 100)
        }
    }

    /// True when a line recognised in a chunk's region lies on one of the chunk's line boxes from layout
    /// analysis: its centre within the box's height (and half of it again either side), and at least half of its
    /// width over the box.
    static func liesOnALine(_ box: NormalizedBox, of chunk: [OrderedLine]) -> Bool {
        chunk.contains { line in
            let layout = line.observation.box
            let shared = min(box.maxX, layout.maxX) - max(box.minX, layout.minX)
            return abs(box.midY - layout.midY) <= layout.height && shared >= box.width / 2
        }
    }

    /// True when the centre of `box` lies inside `region`.
    static func centre(of box: NormalizedBox, isIn region: NormalizedBox) -> Bool {
        box.midX > region.minX && box.midX < region.maxX && box.midY > region.minY && box.midY < region.maxY
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
        withoutRules(lines).filter { outer in
            let held = lines.filter { inner in
                inner.box != outer.box && inner.box.midX > outer.box.minX && inner.box.midX < outer.box.maxX
                    && inner.box.midY > outer.box.minY && inner.box.midY < outer.box.maxY
            }
            return held.count < 2
        }
    }

    /// Layout analysis also reports a book's spine, a ruled line or a picture's edge as a "line": taller than it
    /// is wide and taller than three lines of the page, it holds no text a whole-page reading would read (that
    /// reading never gives it: its spine read "|" was the streamed reading's first sentence, issue 70).
    public static func withoutRules(_ lines: [TextObservation]) -> [TextObservation] {
        let heights = lines.map(\.box.height).sorted()
        guard heights.count >= 3 else { return lines }
        let typical = heights[heights.count / 2]
        return lines.filter { line in !(line.box.height > 3 * typical && line.box.width < line.box.height) }
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
