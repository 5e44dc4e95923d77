import Foundation
import HostTesting
import OCR
import Testing

@testable import ReadTextCore

/// Real tesseract on pages rendered with real fonts: character error rate and reading order.
@Suite("read-text: recognition on rendered pages", .serialized)
struct RecognitionTests {
    static let english = [
        "The quick brown fox jumps over the lazy dog.", "Call Dr. Smith tomorrow morning. He is in.",
        "Reading aloud helps people who cannot see.", "This is the fourth line of the sample page.",
    ]
    static let russian = [
        "Съешь же ещё этих мягких французских булок.", "Да выпей чаю, пожалуйста, сейчас же.",
        "Чтение вслух помогает тем, кто не видит.",
    ]
    static let chinese = ["我们今天去图书馆看书。", "请把这本书放在桌子上。", "阅读可以帮助看不见的人。"]

    let folder: TemporaryDirectory

    init() throws {
        setenv("OMP_THREAD_LIMIT", "1", 0)
        folder = try TemporaryDirectory("assist-ocr")
    }

    /// Recognises `url` as read-text does for a photo (whole page, PSM 3) and returns the items' text.
    func read(_ url: URL, languages: String, options: ReadTextOptions = ReadTextOptions()) throws -> (
        String, [ReadingItem], Int
    ) {
        let engine = try TesseractEngine(languages: languages)
        let photo = try TesseractEngine.loadGray(url)
        let observations = photo.pixels.withUnsafeBytes { bytes in
            bytes.baseAddress.map {
                engine.recognize(gray: $0, width: photo.width, height: photo.height, stride: photo.width)
            } ?? []
        }
        let result = TextPipeline(options: options).process(observations)
        return (observations.map(\.text).joined(separator: " "), result.items, result.columns)
    }

    @Test(arguments: [
        ("en", "eng", "DejaVu-Sans", 0.01), ("ru", "rus+eng", "DejaVu-Sans", 0.01),
        ("zh", "chi_sim+eng", "WenQuanYi-Zen-Hei", 0.01),
    ])
    func cleanPagesAreReadAlmostExactly(language: String, languages: String, font: String, limit: Double) throws {
        let lines = language == "en" ? Self.english : language == "ru" ? Self.russian : Self.chinese
        let url = folder.path("\(language).png")
        try PageRenderer(font: font).render([.init(lines, x: 100, y: 150)], to: url)
        let (text, _, _) = try read(url, languages: languages)
        let reference = language == "zh" ? lines.joined() : lines.joined(separator: " ")
        let recognised = language == "zh" ? text.replacingOccurrences(of: " ", with: "") : text
        let cer = PageRenderer.characterErrorRate(recognised, reference: reference)
        #expect(cer <= limit, "CER \(cer): \(text)")
    }

    @Test(arguments: [
        ["-rotate", "3"], ["-blur", "0x1.2"], ["-attenuate", "0.6", "+noise", "Gaussian"], ["+level", "35%,65%"],
        ["(", "-size", "1600x1000", "radial-gradient:white-gray25", ")", "-compose", "multiply", "-composite"],
    ])
    func photographedPagesStayReadable(degradation: [String]) throws {
        let url = folder.path("degraded.jpg")
        try PageRenderer(degrade: degradation + ["-quality", "85"]).render(
            [.init(Self.english, x: 100, y: 150)], to: url)
        let (text, _, _) = try read(url, languages: "eng")
        let cer = PageRenderer.characterErrorRate(text, reference: Self.english.joined(separator: " "))
        #expect(cer <= 0.03, "CER \(cer) after \(degradation): \(text)")
    }

    @Test func twoColumnsAreReadColumnByColumn() throws {
        let left = [
            "Left column begins here with", "a story that goes on and on", "with more words to read aloud",
            "until it ends right here.",
        ]
        let right = [
            "Right column starts now and", "it has a story of its own", "with other words to say out",
            "loud before it stops.",
        ]
        let url = folder.path("columns.png")
        try PageRenderer(width: 1500, height: 900).render(
            [
                .init(["A headline across the whole page"], x: 100, y: 110, pointSize: 44), .init(left, x: 100, y: 230),
                .init(right, x: 790, y: 230),
            ], to: url)
        let (_, items, columns) = try read(url, languages: "eng")
        #expect(columns == 2)
        let spoken = items.map(\.text).joined(separator: " ")
        let order = ["headline", "Left column", "until it ends", "Right column", "before it stops"].map {
            spoken.range(of: $0)?.lowerBound
        }
        #expect(order.allSatisfy { $0 != nil }, "\(spoken)")
        let positions = order.compactMap { $0 }
        #expect(positions == positions.sorted(), "headline, then the left column, then the right: \(spoken)")
    }

    @Test func theOppositePageOfABookIsLeftOut() throws {
        let page = Self.english + ["It continues on this page with", "a few more lines of text."]
        let opposite = [
            "the facing page of the book", "shows here at the edge", "and must not be read", "by Assist at all",
            "because it is another page", "entirely.",
        ]
        let url = folder.path("book.png")
        try PageRenderer(width: 1800, height: 900).render(
            [.init(page, x: 300, y: 150, lineHeight: 60), .init(opposite, x: 1450, y: 150, lineHeight: 60)], to: url)
        let (_, pageItems, _) = try read(url, languages: "eng")
        let spoken = pageItems.map(\.text).joined(separator: " ")
        #expect(spoken.contains("quick brown fox") && !spoken.contains("facing page"), "\(spoken)")
        var full = ReadTextOptions()
        full.area = .full
        let (_, fullItems, _) = try read(url, languages: "eng", options: full)
        #expect(fullItems.map(\.text).joined(separator: " ").contains("facing page"), "full mode reads everything")
    }

    @Test func streamingGivesTheSameSentencesAsAWholePage() throws {
        let lines = [
            "Assist reads printed pages aloud for people", "who cannot see them. Point the camera at a",
            "letter, a label or a page of a book. The first", "sentence is spoken while the rest is read.",
            "Columns are read one after the other.",
        ]
        let url = folder.path("stream.png")
        try PageRenderer().render([.init(lines, x: 100, y: 150)], to: url)
        let (_, whole, _) = try read(url, languages: "eng")
        let engine = try TesseractEngine(languages: "eng")
        let photo = try TesseractEngine.loadGray(url)
        var streamed: [String] = []
        _ = photo.pixels.withUnsafeBytes { bytes in
            bytes.baseAddress.map {
                StreamingRecognizer(pipeline: TextPipeline()).run(
                    engine: engine, gray: $0, width: photo.width, height: photo.height, stride: photo.width,
                    vetoFirstBlock: true
                ) { items, _ in streamed += items.map(\.text) }
            }
        }
        #expect(streamed == whole.map(\.text))
        #expect(streamed.count == 4, "\(streamed)")
    }

    /// Streams `url` as read-text does with the camera and returns the sentences and the run's summary.
    func stream(_ url: URL) throws -> ([String], StreamingRecognizer.Summary) {
        let engine = try TesseractEngine(languages: "eng")
        let photo = try TesseractEngine.loadGray(url)
        var streamed: [String] = []
        let summary = photo.pixels.withUnsafeBytes { bytes in
            bytes.baseAddress.map {
                StreamingRecognizer(pipeline: TextPipeline()).run(
                    engine: engine, gray: $0, width: photo.width, height: photo.height, stride: photo.width,
                    vetoFirstBlock: true
                ) { items, _ in streamed += items.map(\.text) }
            }
        }
        return (streamed, try #require(summary))
    }

    /// Issue 37: the first chunk comes from the top two fifths of the picture laid out halved; the full layout then
    /// reads the rest. A sentence runs across the first chunk's end, so it is carried into the full layout's
    /// first chunk; no line is read twice or left out. Small print (its halved lines are too small to trust) and
    /// a small picture are laid out once, at full size.
    @Test func theFirstLinesComeFromTheHalvedPictureAndNoLineIsReadTwice() throws {
        let lines = [
            "Assist reads printed pages aloud for people", "who cannot see them. Point the camera at a",
            "letter, a label or a page of a book. The first", "sentence is spoken while the rest is read.",
            "Columns are read one after the other, from", "left to right. The opposite page of a book",
            "is left out on purpose. Press the arrows", "to go back and forth between sentences.",
        ]
        let sentences = [
            "Assist reads printed pages aloud for people who cannot see them.",
            "Point the camera at a letter, a label or a page of a book.",
            "The first sentence is spoken while the rest is read.",
            "Columns are read one after the other, from left to right.",
            "The opposite page of a book is left out on purpose.",
            "Press the arrows to go back and forth between sentences.",
        ]
        // Each page: its size, where its text begins, the print's size and line spacing, and whether the first
        // chunk comes from the halved picture. The coarse pass lays out only the top two fifths (880 pixels of
        // 2200): text that begins below it is laid out once, at full size; text across its edge, a line cut by it
        // included, is read once; a block whose lines in the top part the first chunk would all take may go on
        // below it, so it is read from the full layout (else its last sentence there would be taken to end at the
        // edge).
        let pages: [(name: String, size: (Int, Int), at: (Int, Int), print: (Int, Int), halved: Bool)] = [
            ("large", (1700, 2200), (150, 200), (40, 70), true),
            ("low", (1700, 2200), (150, 1200), (40, 70), false),
            ("across", (1700, 2200), (150, 570), (40, 70), true),
            ("one line above the edge, the next cut by it", (1700, 2200), (150, 800), (40, 70), false),
            ("small print (9 pixels a line halved)", (1600, 1000), (100, 100), (16, 27), false),
            ("small", (1200, 900), (60, 80), (28, 50), false),
        ]
        for (index, page) in pages.enumerated() {
            let file = folder.path("page-\(index).png")
            try PageRenderer(width: page.size.0, height: page.size.1).render(
                [.init(lines, x: page.at.0, y: page.at.1, pointSize: page.print.0, lineHeight: page.print.1)],
                to: file)
            let (streamed, summary) = try stream(file)
            #expect(summary.firstChunkFromHalvedPicture == page.halved, "\(page.name)")
            #expect(streamed == sentences, "\(page.name): \(streamed)")
        }
    }

    @Test func aMissingLanguagePackNamesTheDebianPackage() {
        do {
            _ = try TesseractEngine(languages: "kor")
            Issue.record("Korean is not installed here")
        } catch {
            #expect(
                error.message
                    == "Text recognition for kor is not installed. Install the Debian package tesseract-ocr-kor.")
        }
    }
}

extension Error {
    fileprivate var message: String { (self as? OCRError)?.message ?? "\(self)" }
}
