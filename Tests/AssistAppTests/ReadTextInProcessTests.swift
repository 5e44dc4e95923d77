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
}
