import Foundation
import OCR
import Testing

@testable import ReadTextCore

func line(_ text: String, _ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, confidence: Double = 90)
    -> TextObservation
{
    TextObservation(
        text: text, box: NormalizedBox(minX: minX, minY: minY, maxX: maxX, maxY: maxY), confidence: confidence)
}

@Suite("read-text: stability, sharpness, selection, veto")
struct CaptureLogicTests {
    @Test func theThumbnailIsTheMeanOfSixteenSamplesACell() {
        // An odd size with a stride past the width: each cell is the mean of a 4×4 grid spread over its area.
        let (width, height, stride) = (333, 241, 340)
        var generator = SystemRandomNumberGenerator()
        let luma = (0..<(stride * height)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let thumbnail = luma.withUnsafeBufferPointer {
            StabilityDetector.thumbnail(luma: $0.baseAddress!, width: width, height: height, stride: stride)
        }
        var expected = [UInt8]()
        for y in 0..<60 {
            for x in 0..<80 {
                var sum = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        sum += Int(luma[(y * 4 + sy) * height / 240 * stride + (x * 4 + sx) * width / 320])
                    }
                }
                expected.append(UInt8(sum / 16))
            }
        }
        #expect(thumbnail == expected)
    }

    @Test func stabilityNeedsFourQuietPairsAndSettledControls() {
        var detector = StabilityDetector()
        detector.rearm(at: 0)
        let base = [UInt8](repeating: 100, count: 4_800)
        let moved = [UInt8](repeating: 110, count: 4_800)
        let calm = [UInt8](repeating: 101, count: 4_800)
        var time: UInt64 = 0
        func step(_ frame: [UInt8]) -> Bool {
            time += 62_500_000  // 16 fps
            return detector.add(thumbnail: frame, at: time)
        }
        #expect(!step(base) && !step(moved) && !step(base))  // MAD 10: not stable
        var settling: [Bool] = []
        let results = [calm, base, calm, base, calm].map { frame in
            defer { settling.append(detector.isSettling) }
            return step(frame)
        }  // MAD 1 from here on
        #expect(results == [false, false, false, true, false], "stable after 4 pairs, and only once")
        // The early read may start after 2 quiet pairs, and not once the wait has fired.
        #expect(settling == [false, true, true, false, false], "\(settling)")
        #expect(!step(moved) && detector.matchingPairs == 0, "a moved picture breaks the run of pairs")
        var moving = StabilityDetector()
        moving.rearm(at: 0)
        for index in 0..<10 {
            moving.controlReading("focus", value: Int64(100 + index * 10), step: 1)
            let stable = moving.add(thumbnail: base, at: UInt64(index) * 100_000_000)
            #expect(!stable, "a focus that keeps moving blocks")
        }
    }

    @Test func flatGreyHasNoSharpCellsAndNoiseIsSharpEverywhere() {
        var grey = [UInt8](repeating: 128, count: 600 * 600)
        let flat = grey.withUnsafeBufferPointer {
            $0.baseAddress.map { SharpnessGrid.compute(luma: $0, width: 600, height: 600, stride: 600) }
        }
        #expect(flat?.sharpCount == 0)
        var generator = SystemRandomNumberGenerator()
        for index in grey.indices { grey[index] = UInt8.random(in: 0...255, using: &generator) }
        let noise = grey.withUnsafeBufferPointer {
            $0.baseAddress.map { SharpnessGrid.compute(luma: $0, width: 600, height: 600, stride: 600) }
        }
        #expect(noise?.sharpCount == 3_600)
    }

    @Test func selectionLowersTheRequirementUntilACandidateQualifies() {
        var selector = FrameSelector<String>()
        var requirements: [Double] = []
        var chosen: String?
        for (name, count) in [("a", 1_000), ("b", 900), ("c", 1_300)] {
            requirements.append(selector.requirement)
            if case .recognize(let best, let released) = selector.offer(name, sharpCount: count) {
                chosen = best
                #expect(Set(released) == ["a", "b"])
            }
        }
        #expect(requirements == [1_800, 1_200, 800])
        #expect(chosen == "c")
    }

    @Test func theVetoUsesTheMedianConfidence() {
        #expect(ConfidenceVeto.rejects([20, 30, 45]))
        #expect(!ConfidenceVeto.rejects([50, 60, 30]))
    }
}

@Suite("read-text: page mode and reading order")
struct LayoutTests {
    /// A paragraph of `count` lines between x 0.3 and 0.7 starting at y `top`.
    static func block(_ prefix: String, count: Int, minX: Double = 0.3, maxX: Double = 0.7, top: Double = 0.7)
        -> [TextObservation]
    {
        (0..<count).map { index in
            let maxY = top - Double(index) * 0.05
            return line("\(prefix)\(index)", minX, maxY - 0.03, maxX, maxY)
        }
    }

    @Test func pageModeKeepsTheCentralBlockAndDropsTheOppositePage() {
        let page = Self.block("p", count: 8)
        let opposite = Self.block("o", count: 8, minX: 0.85, maxX: 1.0)
        let kept = CentralCluster.keep(page + opposite)
        #expect(kept.map(\.text) == page.map(\.text))
    }

    @Test func aMarginNoteFarFromTheBlockIsLeftOut() {
        let page = Self.block("p", count: 8)
        let note = line("note", 0.02, 0.1, 0.12, 0.13)
        #expect(CentralCluster.keep(page + [note]).map(\.text) == page.map(\.text))
    }

    @Test func fewerThanSixObservationsAreAllKept() {
        let few = Self.block("p", count: 4) + [line("far", 0.9, 0.05, 0.99, 0.08)]
        #expect(CentralCluster.keep(few).count == 5)
    }

    @Test func theQuadOfACentredBlockHugsIt() throws {
        let quad = try #require(CentralCluster.quad(for: Self.block("p", count: 8)))
        // Lines sit 4 rows outside the text (the gap window's middle): within a few cells of the block.
        #expect(quad.topLeft.0 < 0.3 && quad.topLeft.0 > 0.15)
        #expect(quad.topRight.0 > 0.7 && quad.topRight.0 < 0.85)
        #expect(quad.contains(x: 0.5, y: 0.5) && !quad.contains(x: 0.95, y: 0.5))
    }

    @Test func twoColumnsAreReadColumnByColumnAfterASpanningHeadline() {
        let headline = line("Headline", 0.1, 0.85, 0.9, 0.9)
        let left = Self.block("L", count: 5, minX: 0.1, maxX: 0.45, top: 0.8)
        let right = Self.block("R", count: 5, minX: 0.55, maxX: 0.9, top: 0.8)
        let (ordered, columns) = ReadingOrder.order(right + left + [headline])
        #expect(columns == 2)
        #expect(ordered.map(\.observation.text) == ["Headline"] + left.map(\.text) + right.map(\.text))
        #expect(ordered.map(\.column) == [0] + Array(repeating: 0, count: 5) + Array(repeating: 1, count: 5))
        let rows = ReadingOrder.order(right + left + [headline], mode: .rows).lines.map(\.observation.text)
        #expect(rows.prefix(3) == ["Headline", "R0", "L0"] || rows.prefix(3) == ["Headline", "L0", "R0"])
    }
}

@Suite("read-text: sentences, cleanup, saving")
struct TextTests {
    static func items(_ texts: [String], gap: Double = 0.01) -> [String] {
        var lines: [OrderedLine] = []
        var top = 0.9
        for text in texts {
            lines.append(OrderedLine(observation: line(text, 0.1, top - 0.03, 0.9, top), column: 0))
            top -= 0.03 + gap
        }
        return SentenceBuilder().items(lines).map(\.text)
    }

    @Test func sentencesSplitLikeAReader() {
        #expect(Self.items(["Call Dr. Smith. He is in."]) == ["Call Dr. Smith.", "He is in."])
        #expect(Self.items(["J. K. wrote it."]) == ["J. K. wrote it."])
        #expect(Self.items(["你好。再见！"]) == ["你好。", "再见！"])
        #expect(
            Self.items(["The first line goes on", "and ends here. Next"]) == [
                "The first line goes on and ends here.", "Next",
            ])
        #expect(
            Self.items(["A heading", "Body text."], gap: 0.05) == ["A heading.", "Body text."], "a gap forces a break")
        #expect(Self.items(["第一行", "第二行。"]) == ["第一行第二行。"], "no space between CJK characters")
        // Nor within a line, where recognition read a gap after a full-width comma as a word's end (issue 70: the
        // streamed reading put one there, the whole page's not); a space beside a Latin word stays.
        #expect(Self.items(["把披肩裹得更紧， 抵挡海上的冷风。", "用 Assist 读。"]) == ["把披肩裹得更紧，抵挡海上的冷风。", "用 Assist 读。"])
        // A full stop inside a word ends nothing: a price, an address (a scanned bill's "Apples 3.20 2" was read
        // "Apples 3." and "20 2.").
        #expect(
            Self.items(["Apples cost 3.20 euros. See example.org for more.", "He said \"Stop.\" Then he left."])
                == ["Apples cost 3.20 euros.", "See example.org for more.", "He said \"Stop.\"", "Then he left."])
    }

    /// Each sentence carries the lines its words are on (the view outlines them): a line shared by two sentences
    /// goes to both, and a sentence that ends where a line ends takes nothing of the next line.
    @Test func eachSentenceKnowsTheLinesItIsOn() {
        var lines: [OrderedLine] = []
        var top = 0.9
        for text in ["Call Dr. Smith tomorrow morning. He is in.", "Reading aloud helps", "people. Who sees? Not"] {
            lines.append(OrderedLine(observation: line(text, 0.1, top - 0.03, 0.9, top), column: 0))
            top -= 0.04
        }
        let items = SentenceBuilder().items(lines)
        let rows = items.map { item in item.lines.map { box in lines.firstIndex { $0.observation.box == box } ?? -1 } }
        #expect(
            items.map(\.text) == [
                "Call Dr. Smith tomorrow morning.", "He is in.", "Reading aloud helps people.", "Who sees?", "Not",
            ])
        #expect(rows == [[0], [0], [1, 2], [2], [2]], "\(rows)")
        #expect(SentenceBuilder().items(lines, navigation: .lines).map(\.lines.count) == [1, 1, 1])
    }

    @Test func cleanupMakesLettersSpeakable() {
        #expect(SpeechCleanup.spoken("«Hi» I saw B", language: "en") == ",Hi, I saw b,")
        #expect(SpeechCleanup.spoken("Я видел A", language: "ru") == "Я видел a,")
        #expect(SpeechCleanup.spoken("你 好 世界", language: "zh") == "你好世界")
    }

    @Test func savedTextIsRawInReadingOrderAndPrivate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("assist-save-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let items = [
            ReadingItem(text: "«One» B.", column: 0), ReadingItem(text: "Two.", column: 0),
            ReadingItem(text: "Three.", column: 1),
        ]
        let url = try TextSaver.save(
            items, now: Date(timeIntervalSince1970: 0), environment: ["XDG_DOCUMENTS_DIR": folder.path])
        #expect(url.lastPathComponent.hasPrefix("text-19700101-") || url.lastPathComponent.hasPrefix("text-1969"))
        #expect(try String(contentsOf: url, encoding: .utf8) == "«One» B.\nTwo.\n\nThree.\n")
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

@Suite("read-text: streaming layout")
struct StreamingLayoutTests {
    @Test func aRegionAroundRealLinesIsNotReadAsALine() {
        let lines = [line("", 0.2, 0.7, 0.8, 0.73), line("", 0.2, 0.65, 0.8, 0.68), line("", 0.2, 0.6, 0.8, 0.63)]
        let border = line("", 0.0, 0.0, 1.0, 1.0)
        #expect(StreamingRecognizer.withoutContainers(lines + [border]) == lines)
        #expect(StreamingRecognizer.withoutContainers(lines) == lines, "lines side by side are kept")
    }

    /// Issue 70: the layout's boxes of a table (three short cells a row, four rows) may hold one, and the streamed
    /// reading waits for the whole page; two columns of running text (as many boxes side by side, but each a
    /// line of 40 letters and more) and a single column do not, and are streamed.
    @Test func boxesSetAsATablesCellsMayHoldATableAndTwoColumnsOfTextDoNot() {
        let aspect = 0.75
        // Rows 0.04 of the height apart, 0.02 tall: cells 0.06 to 0.12 of the width are 2 to 5 letters.
        func row(_ index: Int, _ spans: [(Double, Double)]) -> [TextObservation] {
            let top = 0.8 - Double(index) * 0.04
            return spans.map { line("", $0.0, top - 0.02, $0.1, top) }
        }
        let table = (0..<4).flatMap { row($0, [(0.1, 0.22), (0.45, 0.51), (0.75, 0.8)]) }
        #expect(StreamingRecognizer.mayHoldATable(table, aspect: aspect))
        let columns = (0..<8).flatMap { row($0, [(0.05, 0.47), (0.53, 0.95)]) }
        #expect(!StreamingRecognizer.mayHoldATable(columns, aspect: aspect))
        let text = (0..<8).flatMap { row($0, [(0.1, 0.9)]) }
        #expect(!StreamingRecognizer.mayHoldATable(text, aspect: aspect))
        #expect(StreamingRecognizer.mayHoldATable(text + table.map { moved($0, down: 0.4) }, aspect: aspect))
    }
}

/// `observation` moved down the picture by `down` of its height.
private func moved(_ observation: TextObservation, down: Double) -> TextObservation {
    let box = observation.box
    return line(observation.text, box.minX, box.minY - down, box.maxX, box.maxY - down)
}
