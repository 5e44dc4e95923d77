import Foundation
import HostTesting
import Testing

/// `assist run read-text` as a user or a script would run it, on a terminal typed key by key (in process,
/// `InProcessScreen`), and spawned where it needs the process: its standard error (a library's noise, the log), a
/// camera device, a password typed where nothing may show. What it reads and says otherwise, a transcript and its
/// status lines among it, is tested in process (`ReadTextInProcessTests`).
@Suite("read-text from the command line", .serialized)
struct ReadTextCLITests {
    let folder: TemporaryDirectory
    let page: URL

    init() throws {
        folder = try TemporaryDirectory("assist-read")
        page = folder.path("page.png")
        try PageRenderer.renderTwoLinePage(to: page)
    }

    /// `assist ARGUMENTS`, spawned: for what needs the process (its standard error, the log, a camera device).
    func spawned(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist, arguments,
            environment: ["ASSIST_DATA_DIR": folder.path("data").path, "LANG": "en_US.UTF-8"],
            timeoutSeconds: 120)
    }

    /// `assist run …` in process, with the same folders.
    func assist(_ arguments: [String]) throws -> ProcessResult {
        try InProcessApp.run(
            arguments, environment: ["ASSIST_DATA_DIR": folder.path("data").path, "LANG": "en_US.UTF-8"],
            timeoutSeconds: 120)
    }

    /// read-text reading `document` on a pseudo-terminal at a sound card's pace, its data in the folder `data`.
    func documentOnTerminal(_ document: URL, data: String) throws -> InProcessScreen {
        try InProcessScreen(
            ["run", "--audio-out", "null", "--data-dir", folder.path(data).path, "read-text", "--file", document.path])
    }

    /// Cut-short and damaged files: the product's one sentence, and no library's own noise before it.
    @Test(arguments: ["png", "jpg"])
    func aCutShortPictureGetsOneSentenceAndNoLibraryNoise(format: String) throws {
        let whole = folder.path("whole.\(format)")
        try PageRenderer().render([.init(["Short"], x: 100, y: 200)], to: whole)
        let data = try Data(contentsOf: whole)
        let cut = folder.path("cut.\(format)")
        try data.prefix(data.count / 3).write(to: cut)
        let garbage = folder.path("garbage.\(format)")
        try Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: garbage)
        for file in [cut, garbage] {
            let result = try spawned(["run", "--no-speech", "read-text", "--image", file.path, "--exit-at-end"])
            let everything = result.standardOutput + result.standardError
            for noise in ["libpng", "Error in", "Corrupt JPEG", "Premature end", "Warning"] {
                #expect(!everything.contains(noise), "\(file.lastPathComponent): \(everything)")
            }
            #expect(!everything.isEmpty, "something is said")
        }
    }

    @Test func theCameraPathWaitsForAsteadyPictureThenReads() throws {
        let expected = [
            "Reading", "Call Dr. Smith tomorrow morning.", "He is in.", "Reading aloud helps people who cannot see.",
            "End of the text.",
        ]
        let still = try spawned([
            "run", "--no-speech", "--camera", "image:\(page.path)", "--camera-fps", "16", "read-text", "--exit-at-end",
        ])
        #expect(still.status == 0, "\(still.standardError)")
        #expect(still.linesAfterNotice == expected)
        #expect(!still.standardError.contains("misbehaving"), "frames are not held too long")
        // The same page through the real V4L2 path: libv4l2 converts the fake device's YUYV frames.
        let fake = try FakeCamera(folder: folder.url)
        let frames = folder.path("page.yuyv")
        _ = try ProcessRunner.run(
            "/usr/bin/ffmpeg",
            [
                "-loglevel", "error", "-y", "-i", page.path, "-vf", "scale=1280:800", "-pix_fmt", "yuyv422", "-f",
                "rawvideo", frames.path,
            ])
        var environment = fake.environment(width: 1280, height: 800, frames: frames.path)
        environment["ASSIST_DATA_DIR"] = folder.path("data").path
        let live = try ProcessRunner.run(
            BuildProducts.assist,
            ["run", "--no-speech", "--camera", "v4l2:\(FakeCamera.devicePath)", "read-text", "--exit-at-end"],
            environment: environment, timeoutSeconds: 120)
        #expect(live.status == 0, "\(live.standardError)")
        #expect(live.lines == expected)
    }

    /// Issue 37: a settling picture is recognised before the stability wait ends and kept when the wait ends on
    /// it; a picture the camera moves away from is dropped without a word of it said, and the next is read.
    @Test func aSettlingPictureIsReadEarlyAndDroppedWhenTheCameraMoves() throws {
        // Pages full of print, as a page held to the camera is: sharp enough to be read at the first steady picture.
        func page(_ name: String, _ word: String) throws -> URL {
            let url = folder.path("\(name).png")
            let lines = (1...20).map { "\(word) line \($0) is printed here with the quick brown fox and the lazy dog." }
            try PageRenderer(width: 1400, height: 1000, degrade: ["-blur", "0x0.6"]).render(
                [.init(lines, x: 30, y: 50, pointSize: 30, lineHeight: 46)], to: url)
            return url
        }
        let still = try spawned([
            "run", "--no-speech", "--verbose", "--camera", "image:\(try page("still", "Amber").path)", "--camera-fps",
            "16", "read-text", "--exit-at-end",
        ])
        #expect(still.status == 0, "\(still.standardError)")
        #expect(still.standardError.contains("frame early, while the picture settles"), "\(still.standardError)")
        let read = still.linesAfterNotice.filter { $0.hasPrefix("Amber line") }
        #expect(read.count == 20 && Set(read).count == 20, "each line once: \(still.linesAfterNotice)")

        // Four frames of one page (the early read starts at the third), then the camera turns to another.
        let frames = folder.path("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let first = try page("first", "Violet")
        let second = try page("second", "Walnut")
        for index in 0..<60 {
            try FileManager.default.copyItem(
                at: index < 4 ? first : second, to: frames.appendingPathComponent(String(format: "%03d.png", index)))
        }
        let moved = try spawned([
            "run", "--no-speech", "--verbose", "--camera", "dir:\(frames.path)", "--camera-fps",
            "\(16 / ProcessRunner.timeScale)", "read-text", "--exit-at-end",
        ])
        #expect(moved.status == 0, "\(moved.standardError)")
        #expect(
            moved.standardError.contains("the camera moved: the early reading is dropped"), "\(moved.standardError)")
        #expect(!moved.standardOutput.contains("Violet"), "nothing of the page turned away from: \(moved.lines)")
        #expect(moved.lines.filter { $0.hasPrefix("Walnut line") }.count == 20, "\(moved.lines)")
    }

    /// Issue 70, item 2: a document opened again goes on where reading stopped, asked first; no reads it from
    /// the start; read to its end, it is not asked about. The place is kept by the document's content: a copy
    /// under another name is the same document. Neither name nor path is kept.
    @Test func aDocumentOpenedAgainGoesOnWhereReadingStoppedAskedFirst() throws {
        let document = folder.path("minutes.pdf")
        try PdfWriter(pages: [
            .text(["The meeting opened at six.", "Ten members came."]),
            .text(["The roof will be mended in May.", "The cost is shared by all flats."]),
            .text(["The next meeting is in June."]),
        ]).data().write(to: document)
        let first = try documentOnTerminal(document, data: "places-data")
        #expect(first.waitFor("The meeting opened at six.", timeout: 60), "\(first.text)")
        first.type("\u{1B}[6~")
        #expect(first.waitFor("The roof will be mended in May."), "\(first.text)")
        first.type("\u{1B}[C")
        #expect(first.waitFor("The cost is shared by all flats."), "\(first.text)")
        first.hangUp()
        _ = first.waitForExit()

        let copy = folder.path("minutes-copy.pdf")
        try FileManager.default.copyItem(at: document, to: copy)
        let again = try documentOnTerminal(copy, data: "places-data")
        #expect(
            again.waitFor("minutes-copy.pdf: you stopped at page 2 of 3. Go on from there?", timeout: 60),
            "\(again.text)")
        #expect(!again.text.contains("The meeting opened at six."), "nothing is read while it asks: \(again.text)")
        again.type("y")
        #expect(again.waitFor("The cost is shared by all flats."), "\(again.text)")
        #expect(!again.text.contains("The meeting opened at six."), "\(again.text)")
        #expect(again.waitFor("The next meeting is in June.", timeout: 30), "\(again.text)")
        #expect(again.waitFor("End of the text.", timeout: 30), "\(again.text)")
        again.hangUp()
        _ = again.waitForExit()

        // Read to its end: opened again, it starts at the start, unasked.
        let fresh = try documentOnTerminal(document, data: "places-data")
        #expect(fresh.waitFor("The meeting opened at six.", timeout: 60), "\(fresh.text)")
        #expect(!fresh.text.contains("Go on from there?"), "\(fresh.text)")
        fresh.type("\u{1B}[6~")
        #expect(fresh.waitFor("The roof will be mended in May."), "\(fresh.text)")
        fresh.hangUp()
        _ = fresh.waitForExit()
        let places = try String(
            contentsOf: folder.path("places-data").appendingPathComponent("plugins/assist.read-text/places.sqlite"),
            encoding: .isoLatin1)
        #expect(!places.contains("minutes"), "no name kept")

        // No: from the start.
        let no = try documentOnTerminal(document, data: "places-data")
        #expect(no.waitFor("you stopped at page 2 of 3. Go on from there?", timeout: 60), "\(no.text)")
        no.type("n")
        #expect(no.waitFor("The meeting opened at six."), "\(no.text)")
        no.hangUp()
        _ = no.waitForExit()
    }

    /// A scanner's multi-page TIFF (one bit a pixel, Group 4) of `pages` US letter pages at 200 dpi, page N saying
    /// "Page N of the <name> begins here.", each page drawn with `degrade`.
    func scannedTIFF(_ name: String, pages count: Int, degrade: [String] = []) throws -> URL {
        var pages: [String] = []
        for index in 1...count {
            let page = folder.path("\(name)-\(index).png")
            try PageRenderer(width: 1700, height: 2200, degrade: degrade).render(
                [.init(["Page \(index) of the \(name) begins here."], x: 150, y: 300, pointSize: 44, lineHeight: 80)],
                to: page)
            pages.append(page.path)
        }
        let document = folder.path("scanned-\(name).tif")
        let made = try ProcessRunner.run(
            "/usr/bin/convert", pages + ["-type", "bilevel", "-compress", "Group4", document.path])
        try #require(made.status == 0, "\(made.standardError)")
        return document
    }

    /// Issue 70: a scanned document opened again at page 3 reads page 3 first, the earlier pages after (going on
    /// at page 30 of a fax no longer waits for 29 pages to be recognised); a page moved to before it is recognised is
    /// waited for. A multi-page TIFF, so its earlier pages are found again in the file (`TiffPages.seek`).
    @Test func aScannedDocumentGoesOnAtItsPageBeforeTheEarlierPagesAreRecognised() throws {
        let document = try scannedTIFF("letter", pages: 4, degrade: ["-rotate", "0.6", "-background", "white"])
        let first = try documentOnTerminal(document, data: "scan-places")
        #expect(first.waitFor("Page 1 of the letter begins here.", timeout: 90), "\(first.text)")
        first.type("\u{1B}[6~")
        #expect(first.waitFor("Page 2 of the letter begins here.", timeout: 60), "\(first.text)")
        first.type("\u{1B}[6~")
        #expect(first.waitFor("Page 3 of the letter begins here.", timeout: 60), "\(first.text)")
        first.hangUp()
        _ = first.waitForExit()

        let again = try PseudoTerminal(
            BuildProducts.assist,
            [
                "run", "--audio-out", "null", "--verbose", "--data-dir", folder.path("scan-places").path, "read-text",
                "--file", document.path,
            ])
        #expect(again.waitFor("you stopped at page 3 of 4. Go on from there?", timeout: 60), "\(again.text)")
        again.type("y")
        #expect(again.waitFor("Page 3 of the letter begins here.", timeout: 60), "\(again.text)")
        // Page 2, asked for before it is recognised: read next, waited for, and read when it comes.
        again.typeSlowly("/page 2\r")
        #expect(again.waitFor("Page 2 of the letter begins here.", timeout: 90), "\(again.text)")
        #expect(again.waitFor("page 1 has no text layer", timeout: 90), "the first page last: \(again.text)")
        let log = again.text
        // Page 3 first, then the page after it before the skipped first page (page 2, asked for, may come anywhere
        // after page 3).
        let at = (1...4).map { log.range(of: "page \($0) has no text layer")?.lowerBound }
        let found = at.compactMap { $0 }
        #expect(found.count == 4 && found.min() == at[2] && at[3]! < at[0]!, "\(log)")
        kill(again.processIdentifier, SIGHUP)
        _ = again.waitForExit()
    }

    /// Issue 70: `--transcript` prints a scanned document's pages in their order, parted by form feeds, even when
    /// a page further on is asked for at a terminal while the first is being recognised (that would read it next).
    @Test func aTranscriptKeepsThePagesInOrderWhateverPageIsAskedFor() throws {
        let document = try scannedTIFF("notice", pages: 3)
        let screen = try InProcessScreen(
            [
                "run", "--no-speech", "--data-dir", folder.path("transcript-data").path, "read-text", "--file",
                document.path, "--transcript", "--exit-at-end",
            ])
        #expect(screen.waitFor("Reading", timeout: 60), "\(screen.text)")
        screen.typeSlowly("/page 3\r", gap: 0.01)
        #expect(screen.waitForExit(timeout: 90) == 0, "\(screen.text)")
        let text = screen.text
        let at = (1...3).map { text.range(of: "Page \($0) of the notice begins here.")?.lowerBound }
        #expect(at.allSatisfy { $0 != nil } && at[0]! < at[1]! && at[1]! < at[2]!, "\(text)")
        #expect(text.filter { $0 == "\u{0C}" }.count == 2, "\(text)")
    }

    /// Issue 70: a document opened from the camera (o), as a person who started Read text from the shell's menu
    /// does: the path is asked for, a path with no file behind it is said and asked for again (quotes around a
    /// pasted path are taken off), and the document is read with its pages; Escape at the question goes back.
    @Test func oOpensADocumentFromTheCamera() throws {
        let document = folder.path("notice.pdf")
        try PdfWriter(pages: [
            .text(["The water will be off on Friday."]), .text(["It comes back at noon."]),
        ]).data().write(to: document)
        let screen = try InProcessScreen(
            [
                "run", "--audio-out", "null", "--camera", "pattern", "--data-dir", folder.path("open-data").path,
                "read-text",
            ])
        #expect(screen.allowFirstUse("Read text", answer: "y"), "\(screen.text)")
        #expect(screen.waitFor("Reading", timeout: 60), "\(screen.text)")
        screen.type("o")
        #expect(screen.waitFor("Type the path of a document or a picture"), "\(screen.text)")
        screen.type("\u{1B}")
        #expect(screen.waitFor("Nothing opened."), "\(screen.text)")
        screen.type("o")
        #expect(screen.waitFor("Type the path of a document or a picture", count: 2), "\(screen.text)")
        screen.typeSlowly(folder.path("no-such.pdf").path + "\r", gap: 0.01)
        #expect(screen.waitFor("There is no file at"), "\(screen.text)")
        screen.typeSlowly("'\(document.path)'\r", gap: 0.01)
        #expect(screen.waitFor("The water will be off on Friday.", timeout: 30), "\(screen.text)")
        screen.type("\u{1B}[6~")
        #expect(screen.waitFor("It comes back at noon."), "\(screen.text)")
        screen.hangUp()
        _ = screen.waitForExit()
    }

    /// Issue 70, on a terminal typed key by key: a document's pages by Page Up and Page Down and by `/page N`,
    /// and where-am-I with the page.
    @Test func aDocumentsPagesAreReachedByKeysOnATerminal() throws {
        let document = folder.path("pages.pdf")
        try PdfWriter(pages: [
            .text(["The first page starts here. It has two sentences."]),
            .text(["The second page is in the middle."]),
            .text(["The third page is the last one."]),
        ]).data().write(to: document)
        let screen = try InProcessScreen(
            ["run", "--no-speech", "--data-dir", folder.path("pty-data").path, "read-text", "--file", document.path])
        #expect(screen.waitFor("The third page is the last one.", timeout: 60), "\(screen.text)")
        #expect(!screen.text.contains("asks for"), "a document needs no camera: nothing is asked first")
        screen.type(Array("\u{1B}[5~".utf8))  // Page Up
        #expect(screen.waitFor("The second page is in the middle.", count: 2), "\(screen.text)")
        // Without speech a sentence is over at once and reading goes on: where-am-I says the page read by then.
        screen.type("w")
        #expect(screen.waitFor(" of 3, sentence 1 of 1"), "\(screen.text)")
        screen.type(Array("\u{1B}[6~".utf8))  // Page Down
        #expect(screen.waitFor("The third page is the last one.", count: 2), "\(screen.text)")
        let ends = screen.occurrences(of: "End of the text.")
        screen.typeSlowly("/page 1\r")
        #expect(screen.waitFor("The first page starts here.", count: 2), "\(screen.text)")
        // The words voice listens for after "page" work typed too (once the reading from page 1 is at its end).
        #expect(screen.waitFor("End of the text.", count: ends + 1), "\(screen.text)")
        let before = screen.occurrences(of: "The second page is in the middle.")
        screen.typeSlowly("/page two\r")
        #expect(screen.waitFor("The second page is in the middle.", count: before + 1), "\(screen.text)")
        screen.typeSlowly("/page 9\r")
        #expect(screen.waitFor("There is no page 9: the document has 3 pages."), "\(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitForExit() == 0, "\(screen.text)")
    }

    /// Issue 70, bad input: a PDF locked with a password (qpdf's AES-256, as a bank's statement comes) asks for
    /// it by a typed line that is neither echoed, said, logged nor kept; a wrong password is asked for again; no
    /// answer says the document was not read, and reads nothing.
    @Test func aLockedDocumentAsksForItsPasswordAndKeepsNothing() throws {
        let plain = folder.path("plain.pdf")
        try PdfWriter(pages: [.text(["The bank statement for March is below.", "The balance is 42 euros."])]).data()
            .write(to: plain)
        let locked = folder.path("statement.pdf")
        let password = "tulip 42 Zebra"
        let made = try ProcessRunner.run(
            "/usr/bin/qpdf", ["--encrypt", password, "the owner's own", "256", "--", plain.path, locked.path])
        try #require(made.status == 0, "\(made.standardError)")
        let data = folder.path("locked-data")
        // On a terminal, typed key by key once asked: a wrong password, then the right one; not one letter shown.
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            ["run", "--no-speech", "--data-dir", data.path, "read-text", "--file", locked.path, "--exit-at-end"])
        #expect(
            screen.waitFor(
                "statement.pdf is locked with a password. Type its password and press Enter; it is not shown, said "
                    + "or kept. Escape stops.", timeout: 60), "\(screen.text)")
        screen.typeSlowly("wrong guess\r")
        #expect(screen.waitFor("That password does not open statement.pdf."), "\(screen.text)")
        screen.typeSlowly(password + "\r")
        #expect(screen.waitFor("The balance is 42 euros.", timeout: 60), "\(screen.text)")
        #expect(screen.waitFor("End of the text."), "\(screen.text)")
        #expect(screen.waitForExit(timeout: 30) == 0, "\(screen.text)")
        for secret in [password, "Zebra", "wrong guess", "guess"] {
            #expect(!screen.text.contains(secret), "\(screen.text)")
        }
        // Kept nowhere: no file the run left in its data folder holds either.
        let files = FileManager.default.enumerator(at: data, includingPropertiesForKeys: nil)?.allObjects ?? []
        for case let file as URL in files {
            let bytes = (try? Data(contentsOf: file)) ?? Data()
            #expect(bytes.range(of: Data(password.utf8)) == nil, "\(file.path)")
            #expect(bytes.range(of: Data("wrong guess".utf8)) == nil, "\(file.path)")
        }
        // No answer (standard input ends, as Escape does at a terminal): one sentence, nothing read.
        let none = try ProcessRunner.run(
            BuildProducts.assist, ["run", "--no-speech", "read-text", "--file", locked.path, "--exit-at-end"],
            input: "", environment: ["ASSIST_DATA_DIR": data.path, "LANG": "en_US.UTF-8"], timeoutSeconds: 120)
        #expect(none.status != 0)
        #expect(
            none.lines.contains(
                "statement.pdf is locked with a password and was not read. Run read-text on it again when you have "
                    + "the password."), "\(none.lines)")
        #expect(!none.lines.contains("The balance is 42 euros."))
    }

    /// Issue 70, item 3: a table in a PDF's text layer (cells placed in columns, no rules; Poppler gives each cell
    /// as a line of its own) is read row by row, the first row's cells after their headers, and printed by
    /// `--transcript` a row a line, its cells apart by tabs; the paragraphs around it are read as before. On a
    /// terminal, t moves to it and says where reading is in it, and the arrows move by row and by cell.
    @Test func aTableInADocumentIsReadRowByRow() throws {
        let document = folder.path("order.pdf")
        typealias Piece = PdfWriter.PlacedText
        var pieces = [Piece("Your order from the market, listed below.", x: 40, y: 60)]
        let rows = [
            ["Item", "Price", "Quantity"], ["Apples", "3.20", "2"], ["Pears", "2.75", "5"], ["Bread", "1.90", "1"],
        ]
        for (number, row) in rows.enumerated() {
            for (cell, x) in zip(row, [40, 200, 300]) { pieces.append(Piece(cell, x: x, y: 100 + 18 * number)) }
        }
        pieces.append(Piece("Thank you for shopping with us.", x: 40, y: 200))
        try PdfWriter(pages: [.placed(pieces)]).data().write(to: document)
        let transcript = try assist([
            "run", "--no-speech", "read-text", "--file", document.path, "--exit-at-end", "--transcript",
        ])
        #expect(transcript.status == 0, "\(transcript.standardError)")
        #expect(
            transcript.lines == [
                "Your order from the market, listed below.", "Item\tPrice\tQuantity", "Apples\t3.20\t2",
                "Pears\t2.75\t5", "Bread\t1.90\t1", "Thank you for shopping with us.",
            ], "\(transcript.lines)")
        let heard = try assist(["run", "--no-speech", "read-text", "--file", document.path, "--exit-at-end"])
        #expect(heard.status == 0, "\(heard.standardError)")
        let table = heard.lines.drop { !$0.hasPrefix("Table of") }.prefix(4)
        #expect(
            Array(table) == [
                "Table of 4 rows and 3 columns.", "Item: Apples. Price: 3.20. Quantity: 2.", "Pears. 2.75. 5.",
                "Bread. 1.90. 1.",
            ], "\(heard.lines)")
        // By keys, at a sound card's pace, with a longer paragraph before the table: t goes on to the table, past
        // the paragraph's other sentences; in it, t says the row being read; after it, that there is no other.
        var longer = [Piece("Your order from the market arrived today. It came in two boxes.", x: 40, y: 30)]
        longer += (1...4).map {
            Piece("This is sentence \($0) of a paragraph about the order.", x: 40, y: 30 + 13 * $0)
        }
        longer += pieces.dropFirst()
        let paged = folder.path("order-long.pdf")
        try PdfWriter(pages: [.placed(longer)]).data().write(to: paged)
        let screen = try documentOnTerminal(paged, data: "table-data")
        #expect(screen.waitFor("Your order from the market arrived today.", timeout: 60), "\(screen.text)")
        screen.type("t")
        #expect(screen.waitFor("Table of 4 rows and 3 columns."), "\(screen.text)")
        #expect(!screen.text.contains("This is sentence 4"), "the paragraph was left: \(screen.text)")
        #expect(screen.waitFor("Item: Apples."), "\(screen.text)")
        screen.type("t")
        #expect(screen.waitFor("under the header, in a table of 3 columns."), "\(screen.text)")
        #expect(screen.waitFor("End of the text.", timeout: 30), "\(screen.text)")
        screen.type("t")
        #expect(screen.waitFor("There is no table after this one."), "\(screen.text)")
        // The arrows: Up goes back a row (the table's last), and inside it Left and Right move by cell, each
        // said after its column's header, as a line of its own; past the row's start, it says so.
        screen.type("\u{1B}[A")
        #expect(screen.waitFor("Bread. 1.90. 1.", count: 2), "\(screen.text)")
        func line(_ wanted: String) -> Bool {
            let deadline = Date().addingTimeInterval(20 * ProcessRunner.timeScale)
            while Date() < deadline {
                if screen.lines.contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == wanted }) {
                    return true
                }
                usleep(50_000)
            }
            return false
        }
        for cell in ["Quantity: 1", "Price: 1.90", "Item: Bread"] {
            screen.type("\u{1B}[D")
            #expect(line(cell), "\(screen.text)")
        }
        screen.type("\u{1B}[D")
        #expect(line("Start of the row."), "\(screen.text)")
        screen.type("\u{1B}[C")
        #expect(screen.waitFor("Price: 1.90", count: 2), "\(screen.text)")
        screen.hangUp()
        _ = screen.waitForExit()
    }

    /// Issue 70: a scanned letter's headings (set larger than its text: no font to ask, only how tall its
    /// recognised lines are) are read as headings, each alone, never made a sentence; its body is read as before.
    /// Two pages drawn at 150 dpi, turned 2° and saved as JPEG at 70, in an image-only PDF.
    @Test func aScannedDocumentsHeadingsAreHeadingsToo() throws {
        let renderer = PageRenderer(
            width: 1240, height: 1754, font: "DejaVu-Sans",
            degrade: ["-background", "white", "-rotate", "2", "-type", "Grayscale", "-quality", "70"])
        let first = folder.path("scan-1.jpg")
        let second = folder.path("scan-2.jpg")
        try renderer.render(
            [
                .init(["Your electricity bill"], x: 100, y: 180, pointSize: 52, lineHeight: 80),
                .init(
                    [
                        "This letter explains the amount you owe for the",
                        "winter months and how it was worked out.",
                    ], x: 100, y: 300, pointSize: 32, lineHeight: 56),
                .init(["How to pay"], x: 100, y: 480, pointSize: 52, lineHeight: 80),
                .init(
                    ["Pay by bank transfer or at any post office.", "Late payments cost five euros."], x: 100, y: 600,
                    pointSize: 32, lineHeight: 56),
            ], to: first)
        try renderer.render(
            [
                .init(["Questions"], x: 100, y: 180, pointSize: 52, lineHeight: 80),
                .init(
                    ["Call us on weekdays between nine and five,", "or write to the address above."], x: 100,
                    y: 300, pointSize: 32, lineHeight: 56),
            ], to: second)
        let document = folder.path("scanned-bill.pdf")
        try PdfWriter(pages: [try PdfWriter.Page.a4Scan(first), try PdfWriter.Page.a4Scan(second)]).data().write(
            to: document)
        let transcript = try assist([
            "run", "--no-speech", "read-text", "--file", document.path, "--exit-at-end", "--transcript",
        ])
        #expect(transcript.status == 0, "\(transcript.standardError)")
        #expect(
            transcript.lines == [
                "Your electricity bill",
                "This letter explains the amount you owe for the winter months and how it was worked out.",
                "How to pay", "Pay by bank transfer or at any post office.", "Late payments cost five euros.", "\u{0C}",
                "Questions", "Call us on weekdays between nine and five, or write to the address above.",
            ], "\(transcript.lines)")
        // On a terminal, reading at a sound card's pace: h goes to the next heading (the sentence between never
        // read), again to the next page's, and H back.
        let screen = try documentOnTerminal(document, data: "scanned-headings-data")
        #expect(screen.waitFor("Your electricity bill", timeout: 60), "\(screen.text)")
        screen.type("h")
        #expect(screen.waitFor("How to pay"), "\(screen.text)")
        #expect(!screen.text.contains("This letter explains"), "\(screen.text)")
        screen.type("h")
        #expect(screen.waitFor("Questions"), "\(screen.text)")
        screen.type("H")
        #expect(screen.waitFor("How to pay", count: 2), "\(screen.text)")
        screen.hangUp()
        _ = screen.waitForExit()
    }

    /// Issue 70: a document's headings (set larger than its text, or bold where the text is not) are read as
    /// headings, each alone, never joined to the sentence after; h and H move to the next and the one before, on
    /// a terminal key by key, across pages; "Heading:" is said before the first on a page; F1 is still help. The
    /// transcript parts its pages with a form feed.
    @Test func aDocumentsHeadingsAreReadAsHeadingsAndHAndShiftHMoveToThem() throws {
        let document = folder.path("bill.pdf")
        typealias Line = PdfWriter.StyledLine
        try PdfWriter(pages: [
            .styled([
                Line("Your electricity bill", pointSize: 20),
                Line("This letter explains the amount you owe for the winter months and"),
                Line("how it was worked out from the readings of your meter."),
                Line("How to pay", bold: true),
                Line("Pay by bank transfer or at any post office before the end of March."),
                Line("Late payments cost five euros.", bold: true),
            ]),
            .styled([
                Line("Questions", pointSize: 20),
                Line("Call us on weekdays between nine and five, or write to the address above."),
            ]),
        ]).data().write(to: document)
        let transcript = try assist([
            "run", "--no-speech", "read-text", "--file", document.path, "--exit-at-end", "--transcript",
        ])
        #expect(transcript.status == 0, "\(transcript.standardError)")
        #expect(
            transcript.lines == [
                "Your electricity bill",
                "This letter explains the amount you owe for the winter months and how it was worked out from the readings of your meter.",
                "How to pay", "Pay by bank transfer or at any post office before the end of March.",
                "Late payments cost five euros.", "\u{0C}", "Questions",
                "Call us on weekdays between nine and five, or write to the address above.",
            ], "\(transcript.lines)")
        #expect(
            !transcript.lines.contains { $0.hasPrefix("Your electricity bill.") }, "a heading is no sentence's start")
        // By keys, reading at a sound card's pace: h to the next heading, again to the next page's, H back.
        let screen = try documentOnTerminal(document, data: "headings-data")
        #expect(screen.waitFor("This letter explains", timeout: 60), "\(screen.text)")
        screen.type("h")
        #expect(screen.waitFor("How to pay"), "\(screen.text)")
        screen.type("h")
        #expect(screen.waitFor("Questions"), "\(screen.text)")
        screen.type("H")
        #expect(screen.waitFor("How to pay", count: 2), "\(screen.text)")
        screen.type("H")
        #expect(screen.waitFor("Your electricity bill", count: 2), "\(screen.text)")
        screen.type("H")
        #expect(screen.waitFor("There is no heading before this one."), "\(screen.text)")
        screen.type(Array("\u{1B}OP".utf8))  // F1: help, with the heading keys listed
        // Printed as it is read, a line ahead of the ear.
        #expect(screen.waitFor("Next heading", timeout: 60), "\(screen.text)")
        screen.type(Array("\u{1B}".utf8))
        screen.hangUp()
        _ = screen.waitForExit()
        // No heading is made of a bold sentence, and none of a line of text set in the body's size.
        #expect(!screen.text.contains("Heading: Late payments"))
    }
}
