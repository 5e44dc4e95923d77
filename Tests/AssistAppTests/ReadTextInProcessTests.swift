import AssistApp
import Foundation
import HostTesting
import Testing

/// read-text run by the app in process (`InProcessApp`): what it reads from photos and documents and what it
/// says of bad ones, as `assist run read-text` says it, without a process for each run.
@Suite("read-text, the app in process")
struct ReadTextInProcessTests {
    let folder: TemporaryDirectory
    let page: URL

    init() throws {
        folder = try TemporaryDirectory("assist-read-app")
        page = folder.path("page.png")
        try PageRenderer.renderTwoLinePage(to: page)
    }

    /// `assist run …` in process, its data in the test's folder, in English.
    func assist(_ arguments: [String]) throws -> ProcessResult {
        try InProcessApp.run(
            arguments, environment: ["ASSIST_DATA_DIR": folder.path("data").path, "LANG": "en_US.UTF-8"])
    }

    @Test(arguments: [[], ["--no-streaming"]])
    func aPhotoIsReadSentenceBySentence(extra: [String]) throws {
        let result = try assist(["run", "--no-speech", "read-text", "--image", page.path, "--exit-at-end"] + extra)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.linesAfterNotice == [
                "Reading", "Call Dr. Smith tomorrow morning.", "He is in.",
                "Reading aloud helps people who cannot see.", "End of the text.",
            ])
    }

    /// The safety notice comes once, at the first use on a data folder, before anything else; never again.
    @Test func theSafetyNoticeIsSaidOnceAtTheFirstUse() throws {
        let data = try TemporaryDirectory("assist-read-notice")
        func read() throws -> ProcessResult {
            try InProcessApp.run([
                "run", "--no-speech", "--data-dir", data.url.path, "read-text", "--image", page.path, "--exit-at-end",
            ])
        }
        let first = try read()
        #expect(
            first.lines.prefix(2) == [
                "Recognition can be wrong. Do not rely on it for crossing roads, medicine doses or money.", "Reading",
            ], "\(first.lines)")
        let second = try read()
        #expect(second.lines.first == "Reading", "once only: \(second.lines)")
    }

    /// A 16000 x 10000 photo: decoded at a quarter of its size, never whole, and still read.
    @Test func aHugeJPEGIsShrunkWhileDecodedAndRead() throws {
        let huge = folder.path("huge.jpg")
        let made = try ProcessRunner.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-i", page.path, "-vf", "scale=16000:10000:flags=bicubic", "-q:v", "4", huge.path])
        try #require(made.status == 0, "\(made.standardError)")
        let result = try assist(["run", "--no-speech", "read-text", "--image", huge.path, "--exit-at-end"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.lines.contains("Reading aloud helps people who cannot see."), "\(result.lines)")
    }

    /// Reading starts at the user's `speech.rate`, up to 450 words a minute, measured in the sound written.
    @Test func readingFollowsTheUsersSpeechRateUpTo450WordsAMinute() throws {
        func spokenSeconds(rate: Int) throws -> Double {
            let config = folder.path("rate-\(rate).toml")
            try "speech.rate = \(rate)\n".write(to: config, atomically: true, encoding: .utf8)
            let wav = folder.path("rate-\(rate).wav")
            let result = try assist(
                [
                    "run", "--config", config.path, "--audio-out", "wav:\(wav.path)", "read-text", "--image",
                    page.path, "--exit-at-end",
                ])
            #expect(result.status == 0, "\(result.standardError)")
            return try SoundAnalysis(url: wav).soundingSeconds(channel: 0)
        }
        let usual = try spokenSeconds(rate: 175)
        let fastest = try spokenSeconds(rate: 450)
        // "Reading" and the page's 16 words: 17 words.
        let wordsPerMinute = 17 / fastest * 60
        #expect(fastest / usual < 0.6, "450 against 175 words a minute: \(fastest) s against \(usual) s")
        #expect(wordsPerMinute > 300, "\(Int(wordsPerMinute)) words a minute heard at speech.rate = 450")
    }

    @Test func russianPagesUseTheRussianLanguagePack() throws {
        let russian = folder.path("ru.png")
        try PageRenderer().render([.init(["Привет, мир. Как дела?"], x: 100, y: 200)], to: russian)
        let result = try assist([
            "run", "--no-speech", "--lang", "ru", "read-text", "--image", russian.path, "--exit-at-end",
        ])
        #expect(result.status == 0)
        #expect(result.linesAfterNotice == ["Читаю", "Привет, мир.", "Как дела?", "Конец текста."])
    }

    @Test func aBlurredPhotoIsReadWithAWarning() throws {
        let blurred = folder.path("blurred.jpg")
        _ = try ProcessRunner.run("/usr/bin/convert", [page.path, "-blur", "0x3", blurred.path])
        let result = try assist(["run", "--no-speech", "read-text", "--image", blurred.path, "--exit-at-end"])
        #expect(result.linesAfterNotice.prefix(2) == ["Reading", "The photo looks blurry."], "\(result.lines)")
    }

    @Test func blankPagesAndBadFilesGetOneClearMessage() throws {
        let blank = folder.path("blank.png")
        _ = try ProcessRunner.run("/usr/bin/convert", ["-size", "800x600", "xc:white", blank.path])
        let none = try assist(["run", "--no-speech", "read-text", "--image", blank.path, "--exit-at-end"])
        #expect(none.lines.contains("Text not found"), "\(none.lines)")
        let text = try folder.write("notes.png", "not a picture")
        let bad = try assist(["run", "--no-speech", "read-text", "--image", text.path])
        #expect(bad.status == 1)
        #expect(
            bad.lines.contains(
                "\(text.path) is plain text, not a picture: open it in a text editor, or give it to a screen reader."
            ), "\(bad.lines)")
        // Russian text, its 512th byte inside a letter: still text.
        let russian = try folder.write("note.jpg", String(repeating: "Привет ", count: 100))
        let letters = try assist(["run", "--no-speech", "read-text", "--image", russian.path])
        #expect(
            letters.lines.contains { $0.hasPrefix("\(russian.path) is plain text, not a picture") }, "\(letters.lines)")
        let noise = folder.path("noise.png")
        try Data((0..<256).map { UInt8(($0 * 97 + 13) % 256) }).write(to: noise)
        let unknown = try assist(["run", "--no-speech", "read-text", "--image", noise.path])
        #expect(
            unknown.lines.contains(
                "The picture \(noise.path) cannot be read. Check that it is a PNG, JPEG or TIFF file."),
            "what it cannot tell: \(unknown.lines)")
        let option = try assist(["run", "--no-speech", "read-text", "--colour"])
        #expect(option.status == 1)
        #expect(option.lines.contains { $0.hasPrefix("Unknown option --colour.") })
    }

    /// A letter scanned at 300 dpi, its body in 10-point type (42 pixels a line, 0.012 of the page's height, the
    /// share of a camera's frame below which a line was dropped as too small): read, as an image-only PDF and as
    /// a picture given with --image, not "Text not found".
    @Test func aLetterScannedAt300DpiIsReadWithItsSmallType() throws {
        let scan = folder.path("letter-300dpi.png")
        let body = [
            "Thank you for your payment of forty euros.", "Your account is now up to date.",
            "We will write again when the new rates are known.",
        ]
        try PageRenderer(width: 2480, height: 3508, font: "DejaVu-Sans", degrade: ["-type", "Grayscale"]).render(
            [.init(body, x: 250, y: 400, pointSize: 40, lineHeight: 62)], to: scan)
        let jpeg = folder.path("letter-300dpi.jpg")
        let converted = try ProcessRunner.run("/usr/bin/convert", [scan.path, "-quality", "85", jpeg.path])
        try #require(converted.status == 0, "\(converted.standardError)")
        let document = folder.path("letter-300dpi.pdf")
        try PdfWriter(pages: [try PdfWriter.Page.a4Scan(jpeg)]).data().write(to: document)
        for given in [["--file", document.path], ["--image", scan.path]] {
            let read = try assist(["run", "--no-speech", "read-text"] + given + ["--exit-at-end", "--transcript"])
            #expect(read.status == 0 && read.lines == body, "\(given): \(read.lines) \(read.standardError)")
        }
    }

    /// Issue 70: a 2,000-page document is read page by page to its end, every line once and in order. Each
    /// sentence read used to look through the whole document read so far (the view's page, a page's place among
    /// the pages): 400 pages of 40 lines took 65 s, and 2,000 would have taken about half an hour; now 2,000 pages
    /// of 41 lines take 12 s and 92 MB at most (debug build; `bench/read_text_pdf_bench.py` measures the first
    /// sentence).
    @Test func aDocumentOfTwoThousandPagesIsReadToItsEnd() throws {
        let pages = 2_000
        let document = folder.path("long.pdf")
        try PdfWriter(
            pages: (1...pages).map { page in .text((1...20).map { "Page \(page), line \($0)." }, height: 600) }
        ).data().write(to: document)
        let result = try assist([
            "run", "--no-speech", "read-text", "--file", document.path, "--exit-at-end", "--transcript",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let expected = (1...pages).flatMap { page in
            (page > 1 ? ["\u{0C}"] : []) + (1...20).map { "Page \(page), line \($0)." }
        }
        #expect(result.lines.count == expected.count, "\(result.lines.suffix(5))")
        #expect(
            result.lines == expected,
            "first difference at line \(zip(result.lines, expected).prefix { $0 == $1 }.count)")
    }

    /// Issue 70, bad input: a PDF cut in half, a web page saved as .pdf, a Word file, an empty file: one sentence
    /// naming the document and why (what it really is, when it is no PDF), exit status 1, nothing read.
    @Test func aBrokenDocumentGetsOneClearSentence() throws {
        let whole = PdfWriter(pages: [
            .text(["A page that is cut in half before its end, so the reader cannot find it."])
        ])
        .data()
        let cut = folder.path("cut.pdf")
        try whole.prefix(whole.count / 3).write(to: cut)
        let html = folder.path("page.pdf")
        try Data("%PDF-<html><body>Not found</body></html>".utf8).write(to: html)
        for file in [cut, html] {
            let result = try assist(["run", "--no-speech", "read-text", "--file", file.path, "--exit-at-end"])
            #expect(result.status != 0, "\(file.lastPathComponent)")
            let said = result.lines.filter { $0.hasPrefix("The document \(file.path) cannot be read:") }
            #expect(said.count == 1, "\(file.lastPathComponent): \(result.lines) \(result.standardError)")
        }
        // What a server sends instead of the document, a Word file, an empty download: what each really is.
        let kinds = [
            (
                "bill.pdf", Data("\u{FEFF}\n  <!DOCTYPE html><html><body>Not found</body></html>".utf8),
                "is a web page (HTML), not a picture or a PDF: a server may have sent an error page instead of the file; download it again."
            ),
            (
                "letter.pdf", Data([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]),
                "is a ZIP archive (a Word, OpenDocument or EPUB file is one), not a picture or a PDF: open it in its program and save or print it as a PDF, then give that."
            ),
            (
                "empty.pdf", Data(),
                "is empty, not a picture or a PDF: it holds nothing to read; give the file again."
            ),
        ]
        for (name, bytes, said) in kinds {
            let file = folder.path(name)
            try bytes.write(to: file)
            let result = try assist(["run", "--no-speech", "read-text", "--file", file.path, "--exit-at-end"])
            #expect(result.status != 0, "\(name)")
            #expect(result.lines.filter { $0 == "\(file.path) \(said)" }.count == 1, "\(name): \(result.lines)")
        }
    }

    /// Issue 70: a table on a scanned page (no text layer, no rules: only where its words stand) is read as a
    /// table, row by row, each cell of the first row after its column's header, with the sentences around it
    /// read as before. Drawn at 150 dpi, turned 1°, JPEG 70, in an image-only PDF; its rows 60 pixels apart, and
    /// 130 as a form's may be (three times their letters' height between them).
    @Test(arguments: [60, 130]) func aTableOnAScannedPageIsReadAsATable(rowPitch: Int) throws {
        let scan = folder.path("order.jpg")
        let columns = [100, 560, 900]
        let rows = [
            ["Item", "Price", "Quantity"], ["Apples", "3.20", "2"], ["Bread", "1.90", "1"], ["Milk", "0.95", "3"],
        ]
        var blocks: [PageRenderer.Block] = [
            .init(["Thank you for your order of the tenth of May."], x: 100, y: 200, pointSize: 32),
            .init(["We will send it within two days."], x: 100, y: 380 + rows.count * rowPitch + 100, pointSize: 32),
        ]
        for (row, cells) in rows.enumerated() {
            for (column, cell) in cells.enumerated() {
                blocks.append(.init([cell], x: columns[column], y: 380 + row * rowPitch, pointSize: 32))
            }
        }
        try PageRenderer(
            width: 1240, height: 1754, font: "DejaVu-Sans",
            degrade: ["-background", "white", "-rotate", "1", "-type", "Grayscale", "-quality", "70"]
        ).render(blocks, to: scan)
        let document = folder.path("order.pdf")
        try PdfWriter(pages: [try PdfWriter.Page.a4Scan(scan)]).data().write(to: document)
        let transcript = try assist([
            "run", "--no-speech", "read-text", "--file", document.path, "--exit-at-end", "--transcript",
        ])
        #expect(transcript.status == 0, "\(transcript.standardError)")
        // Each row one line, its cells apart by tabs, between the sentences; the words as drawn but for what
        // recognition may get wrong in a letter or two (a JPEG's "3.20" can come out "3:20").
        let truth = [
            "Thank you for your order of the tenth of May.", "Item\tPrice\tQuantity", "Apples\t3.20\t2",
            "Bread\t1.90\t1", "Milk\t0.95\t3", "We will send it within two days.",
        ]
        #expect(
            transcript.lines.map { $0.filter { $0 == "\t" }.count } == [0, 2, 2, 2, 2, 0]
                && PageRenderer.characterErrorRate(
                    transcript.lines.joined(separator: "\n"), reference: truth.joined(separator: "\n")) < 0.03,
            "\(transcript.lines)")
        // Said: its size, then the first row after its headers.
        let said = try assist(["run", "--no-speech", "read-text", "--file", document.path, "--exit-at-end"])
        #expect(said.lines.contains("Table of 4 rows and 3 columns."), "\(said.lines)")
        #expect(
            said.lines.contains { $0.hasPrefix("Item: Apples. Price: ") && $0.hasSuffix("Quantity: 2.") },
            "\(said.lines)")
    }

    @Test func speechIsWrittenAndTheTranscriptIsPrintedFirst() throws {
        let wav = folder.path("read.wav")
        let result = try assist(
            [
                "run", "--audio-out", "wav:\(wav.path)", "read-text", "--image", page.path, "--exit-at-end",
                "--transcript",
            ])
        #expect(result.status == 0, "\(result.standardError)")
        // Standard output holds the three sentences alone; "Reading" is spoken and goes to standard error.
        #expect(result.lines.count == 3 && !result.lines.contains("Reading"), "\(result.lines)")
        #expect(result.standardError.split(separator: "\n").contains("Reading"), "\(result.standardError)")
        let sound = try SoundAnalysis(url: wav)
        #expect(sound.file.durationSeconds > 4, "three sentences and 'Reading' were spoken")
    }

    /// Issue 70: a PDF document is read page by page: a page's text layer as it is, a scanned page (no text
    /// layer) through the same recognition as a photo, drawn at 300 dpi; in page order, with the transcript.
    @Test func aDocumentIsReadPageByPageTextLayersAndScansAlike() throws {
        let scan = folder.path("scan.jpg")
        try PageRenderer(
            width: 1250, height: 1667, font: "DejaVu-Sans",
            degrade: ["-type", "Grayscale", "-quality", "90"]
        ).render(
            [
                .init(
                    ["The second page was scanned.", "Its words are only a picture."], x: 100, y: 200, pointSize: 44,
                    lineHeight: 80)
            ],
            to: scan)
        let document = folder.path("letter.pdf")
        try PdfWriter(pages: [
            .text(["Dear reader, this letter has three pages.", "The first one has a text layer."]),
            .scan(jpeg: try Data(contentsOf: scan), pixelWidth: 1250, pixelHeight: 1667),
            .text(["The third page ends the letter. Goodbye."]),
        ]).data().write(to: document)
        let result = try assist([
            "run", "--no-speech", "read-text", "--file", document.path, "--exit-at-end", "--transcript",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.lines == [
                "Dear reader, this letter has three pages.", "The first one has a text layer.", "\u{0C}",
                "The second page was scanned.", "Its words are only a picture.", "\u{0C}",
                "The third page ends the letter.", "Goodbye.",
            ], "\(result.lines)")
        // Its first page has a text layer: its first sentence comes first, with no "Reading" before it (said, with
        // --transcript, on standard error), and the scanned page after it does not say it either.
        #expect(!result.standardError.split(separator: "\n").contains("Reading"), "\(result.standardError)")
        // A picture given with --file is read as --image reads it.
        let picture = try assist([
            "run", "--no-speech", "read-text", "--file", page.path, "--exit-at-end", "--transcript",
        ])
        #expect(picture.lines.first == "Call Dr. Smith tomorrow morning.", "\(picture.lines)")
        // How to run it, on --help, instead of reading.
        let help = try assist(["run", "--no-speech", "read-text", "--help"])
        #expect(
            help.status == 0
                && help.standardOutput.contains("assist run read-text [--image PHOTO | --file PDF-OR-PICTURE]"))
    }

    /// Issue 70: a multi-page TIFF (a scanner's or a fax's document: one bit a pixel, Group 4, each page turned a
    /// little as a feeder turns it) is read page by page as a scanned PDF is; a TIFF of one page is a picture.
    @Test func aMultiPageTIFFIsReadPageByPage() throws {
        var pages: [String] = []
        for (index, angle) in ["0.8", "-1.2", "0.5"].enumerated() {
            let page = folder.path("fax-\(index + 1).png")
            try PageRenderer(width: 1700, height: 2200, degrade: ["-rotate", angle, "-background", "white"]).render(
                [
                    .init(
                        ["Page \(index + 1) of the fax begins here.", "It ends with sentence number \(index + 1)."],
                        x: 150, y: 300, pointSize: 44, lineHeight: 80)
                ], to: page)
            pages.append(page.path)
        }
        let fax = folder.path("fax.tif")
        let made = try ProcessRunner.run(
            "/usr/bin/convert", pages + ["-type", "bilevel", "-compress", "Group4", fax.path])
        try #require(made.status == 0, "\(made.standardError)")
        let result = try assist([
            "run", "--no-speech", "read-text", "--file", fax.path, "--exit-at-end", "--transcript",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        // In page order, word for word; a capital I read as a small one on a turned page of one bit a pixel is
        // recognition's, not the document's.
        #expect(
            result.lines.map { $0.lowercased() } == [
                "page 1 of the fax begins here.", "it ends with sentence number 1.", "\u{0C}",
                "page 2 of the fax begins here.", "it ends with sentence number 2.", "\u{0C}",
                "page 3 of the fax begins here.", "it ends with sentence number 3.",
            ], "\(result.lines)")
        // Nothing to read before its first page is recognised: "Reading" is said once, first.
        #expect(
            result.standardError.split(separator: "\n").filter { $0 == "Reading" }.count == 1, "\(result.standardError)"
        )
        // One page, 16-bit grey as a scanner may save it: a picture, straightened and read as --image reads it.
        let single = folder.path("single.tif")
        #expect(
            try ProcessRunner.run("/usr/bin/convert", [pages[1], "-alpha", "off", "-depth", "16", single.path]).status
                == 0)
        let one = try assist([
            "run", "--no-speech", "read-text", "--file", single.path, "--exit-at-end", "--transcript",
        ])
        #expect(one.lines == ["Page 2 of the fax begins here.", "It ends with sentence number 2."], "\(one.lines)")
    }
}
