import Foundation

/// Makes photographs of printed pages the way a blind person takes them, for read-text's tests and benchmark:
/// a page rendered with a real font on a desk, then damaged as a hand-held camera does (turned, seen in
/// perspective, the opposite page of a book cut by the frame, a soft shadow, lens barrel, JPEG). ImageMagick
/// does all the drawing and distortion.
package struct PagePhotographer {
    /// One way the photo goes wrong.
    package enum Damage: Hashable, Sendable, CustomStringConvertible {
        /// Turned clockwise by this many degrees.
        case rotation(Double)
        /// Seen from below: the top edge narrower by this share of the width (0.05 to 0.15).
        case perspective(Double)
        /// An open book: the opposite page on this side, cut by the frame's edge.
        case oppositePage(left: Bool)
        /// An open book as a phone frames it (issue 70): the facing page, set in a smaller type that fills it,
        /// takes `share` of the picture's width on this side, a shaded gutter between; the main page's text is
        /// in its upper part.
        case openBook(share: Double, left: Bool)
        /// A soft shadow across the page, darkest at one side.
        case shadow
        /// Mild barrel distortion of a cheap lens.
        case barrel
        /// Saved as JPEG at this quality.
        case jpeg(Int)
        /// Turned by whole quarter turns clockwise (2: upside down), after everything else.
        case quarterTurns(Int)
        /// The frame's right edge cuts off the right 30 % of the page.
        case partlyOutside

        package var description: String {
            switch self {
            case .rotation(let degrees): "rotated \(degrees)°"
            case .perspective(let share): "perspective \(Int(share * 100)) %"
            case .oppositePage(let left): "opposite page at the \(left ? "left" : "right")"
            case .openBook(let share, let left):
                "open book, \(Int(share * 100)) % facing page at the \(left ? "left" : "right")"
            case .shadow: "shadow"
            case .barrel: "barrel"
            case .jpeg(let quality): "JPEG \(quality)"
            case .quarterTurns(let turns): "turned \(turns * 90)°"
            case .partlyOutside: "partly outside the frame"
            }
        }
    }

    /// A page's text and the font and size it is set in.
    package struct Page: Sendable {
        package var lines: [String]
        package var font: String
        package var pointSize: Int
        /// The paper's size in pixels (the default is a small page; an A4 page at 200 dpi is 1654 x 2339).
        package var width = PagePhotographer.pageWidth
        package var height = PagePhotographer.pageHeight
        /// Text set at a place of its own, after the lines (a table's cells): its left edge and baseline in pixels.
        package var placed: [Placed] = []

        package struct Placed: Sendable {
            package var text: String
            package var x: Int
            package var y: Int

            package init(_ text: String, x: Int, y: Int) { (self.text, self.x, self.y) = (text, x, y) }
        }

        package init(lines: [String], font: String = "DejaVu-Serif", pointSize: Int = 30) {
            self.lines = lines
            self.font = font
            self.pointSize = pointSize
        }

        /// The reference transcript: the lines joined with spaces.
        package var text: String { lines.joined(separator: " ") }
    }

    /// Pages of the tests and the benchmark, in the three languages Assist speaks (text written for Assist).
    package static let english = Page(lines: [
        "The lighthouse keeper counted the boats every evening.",
        "Most nights there were eleven, but on the first of March",
        "only nine came home. Nobody in the village spoke of it",
        "until spring, when the harbour master opened his ledger",
        "and read the names aloud in the square. The children",
        "listened from the church steps, and the old women",
        "pulled their shawls tighter against the wind. Later",
        "that week a letter arrived from the mainland, with a",
        "stamp nobody had seen before and a smell of oranges.",
    ])
    package static let englishFacing = Page(lines: [
        "Chapter seven begins with a storm over the northern",
        "islands, where the ferries stopped running for a week",
        "and the bakery sold its last loaf before noon each day.",
        "Fishermen mended nets in the church hall while rain",
        "beat against the windows and the radio crackled.",
        "Somebody started a card game that lasted until dawn.",
    ])
    package static let russian = Page(lines: [
        "Смотритель маяка каждый вечер считал лодки.",
        "Обычно их было одиннадцать, но первого марта",
        "домой вернулись только девять. В деревне об этом",
        "молчали до весны, когда начальник порта открыл",
        "свою книгу и прочитал имена на площади. Дети",
        "слушали со ступеней церкви, а старушки кутались",
        "в платки от холодного ветра. Через неделю пришло",
        "письмо с материка с незнакомой маркой.",
    ])
    /// Spanish with every accent and ñ the language uses, and ¿ ¡.
    package static let spanish = Page(lines: [
        "El farero contaba las barcas cada atardecer. Casi",
        "siempre eran once, pero el primero de marzo solo",
        "volvieron nueve. Nadie en el pueblo habló de ello",
        "hasta la primavera, cuando el capitán del puerto",
        "abrió su cuaderno y leyó los nombres en la plaza.",
        "Los niños escuchaban desde la escalinata, y las",
        "ancianas se ajustaban el chal. ¿Quién lo diría?",
        "¡Qué año! Después llegó una carta con un sello",
        "extraño, un olor a naranjas y la firma de Begoña.",
    ])
    package static let chinese = Page(
        lines: [
            "每天傍晚，灯塔看守人都会数一数归来的渔船。",
            "平常总是十一条，可是三月一日那天只回来了九条。",
            "村里的人一直没有提起这件事，直到春天港务长",
            "打开他的账本，在广场上念出了那些名字。",
            "孩子们坐在教堂的台阶上听着，老妇人们",
            "把披肩裹得更紧，抵挡海上吹来的冷风。",
        ], font: "WenQuanYi-Zen-Hei", pointSize: 32)

    package static let pageWidth = 1100
    package static let pageHeight = 1400

    /// Writes a photo of `page` with `damage` to `url` (PNG, or JPEG when `.jpeg` is among the damage).
    /// `opposite` is the text of the facing page for `.oppositePage`. `work` holds the intermediate files.
    package static func photograph(
        _ page: Page, damage: [Damage], opposite: Page? = nil, to url: URL, work: URL
    ) throws {
        let front = work.appendingPathComponent("page-\(UUID().uuidString).png")
        try render(page, to: front)
        let pageWidth = page.width
        let pageHeight = page.height
        var canvas = front
        var spreadOffset = 0
        var spreadWidth = pageWidth
        if let (share, side) = damage.compactMap({ item -> (Double, Bool)? in
            if case .openBook(let share, let left) = item { (share, left) } else { nil }
        }).first {
            // The facing page: a smaller type filling it, its lines running under the gutter's shade.
            let facing = work.appendingPathComponent("facing-\(UUID().uuidString).png")
            var facingPage = Page(
                // Lines as wide as the page (the type is smaller), so the frame cuts them wherever it falls.
                lines: (0..<30).map {
                    let lines = PagePhotographer.englishFacing.lines
                    return lines[$0 % lines.count] + " " + lines[($0 + 1) % lines.count]
                },
                pointSize: 21)
            facingPage.width = pageWidth
            facingPage.height = pageHeight
            try render(facingPage, to: facing)
            // The gutter: each page darkens toward the spine over a tenth of its width.
            let shade = pageWidth / 10
            let shadedFront = work.appendingPathComponent("front-\(UUID().uuidString).png")
            let shadedFacing = work.appendingPathComponent("facing-shaded-\(UUID().uuidString).png")
            for (file, out, spineAtLeft) in [(front, shadedFront, side), (facing, shadedFacing, !side)] {
                try convert([
                    file.path, "(", "-size", "\(pageHeight)x\(shade)", "gradient:gray(55%)-white", "-rotate",
                    spineAtLeft ? "270" : "90", ")", "-gravity", spineAtLeft ? "west" : "east", "-compose", "multiply",
                    "-composite", out.path,
                ])
            }
            let spread = work.appendingPathComponent("spread-\(UUID().uuidString).png")
            let pages = side ? [shadedFacing, shadedFront] : [shadedFront, shadedFacing]
            try convert(["(", pages[0].path, ")", "(", pages[1].path, ")", "+append", spread.path])
            let margin = pageWidth * 9 / 100
            // What stays of the facing page: `share` of the picture, whose other part is the main page and margin.
            let mainPart = margin + pageWidth
            let facingPart = Int(Double(mainPart) * share / (1 - share))
            let keep = mainPart + min(facingPart, pageWidth)
            var arguments = [spread.path, "-bordercolor", "gray(28%)", "-border", "\(margin)"]
            for item in damage {
                if case .rotation(let degrees) = item {
                    arguments += ["-background", "gray(28%)", "-rotate", String(degrees)]
                }
            }
            arguments += ["+repage", "-gravity", side ? "east" : "west", "-crop", "\(keep)x100000+0+0", "+repage"]
            if let quality = damage.compactMap({ if case .jpeg(let quality) = $0 { quality } else { nil } }).first {
                arguments += ["-quality", String(quality)]
            }
            try convert(arguments + ["-colorspace", "Gray", url.path])
            return
        }
        if let side = damage.compactMap({ if case .oppositePage(let left) = $0 { left } else { nil } }).first {
            // A facing page with a shadowed spine between, as an open book has.
            let facing = work.appendingPathComponent("facing-\(UUID().uuidString).png")
            var facingPage = opposite ?? page
            facingPage.width = pageWidth
            facingPage.height = pageHeight
            try render(facingPage, to: facing)
            let spread = work.appendingPathComponent("spread-\(UUID().uuidString).png")
            let spine = ["(", "-size", "14x\(pageHeight)", "xc:gray(35%)", ")"]
            let pages = side ? [facing, front] : [front, facing]
            let order = ["(", pages[0].path, ")"] + spine + ["(", pages[1].path, ")"]
            try convert(order + ["+append", spread.path])
            canvas = spread
            spreadOffset = side ? pageWidth + 14 : 0
            spreadWidth = 2 * pageWidth + 14
        }
        // The desk: a dark margin around the paper, 9 % of the page each side.
        let margin = pageWidth * 9 / 100
        var arguments = [canvas.path, "-bordercolor", "gray(28%)", "-border", "\(margin)"]
        let width = spreadWidth + 2 * margin
        let height = pageHeight + 2 * margin
        for item in damage {
            switch item {
            case .perspective(let share):
                // The page's own corners move: the top edge narrower, the page seen from below.
                let left = Double(margin + spreadOffset)
                let right = left + Double(pageWidth)
                let top = Double(margin)
                let bottom = top + Double(pageHeight)
                let inset = share * Double(pageWidth) / 2
                let points = [
                    (left, top, left + inset, top), (right, top, right - inset, top), (left, bottom, left, bottom),
                    (right, bottom, right, bottom),
                ]
                let spec = points.map { "\($0.0),\($0.1) \($0.2),\($0.3)" }.joined(separator: "  ")
                arguments += [
                    "-virtual-pixel", "background", "-background", "gray(28%)", "-distort", "Perspective", spec,
                ]
            case .rotation(let degrees):
                arguments += ["-background", "gray(28%)", "-rotate", String(degrees)]
            case .shadow:
                arguments += [
                    "(", "-size", "\(height)x\(width)", "gradient:gray(58%)-white", "-rotate", "90", "-blur", "0x40",
                    ")",
                    "-compose", "multiply", "-composite",
                ]
            case .barrel:
                arguments += [
                    "-virtual-pixel", "background", "-background", "gray(28%)", "-distort", "Barrel", "0.0 0.0 -0.04",
                ]
            case .oppositePage, .openBook, .jpeg, .quarterTurns, .partlyOutside:
                break
            }
        }
        arguments += ["+repage"]
        if let side = damage.compactMap({ if case .oppositePage(let left) = $0 { left } else { nil } }).first {
            // The frame cuts the facing page: a third of it stays in the picture.
            let keep = margin + pageWidth + 14 + pageWidth / 3 + margin
            arguments += ["-gravity", side ? "east" : "west", "-crop", "\(keep)x100000+0+0", "+repage"]
        }
        if damage.contains(.partlyOutside) {
            arguments += ["-gravity", "west", "-crop", "\(margin + pageWidth * 7 / 10)x100000+0+0", "+repage"]
        }
        if let turns = damage.compactMap({ if case .quarterTurns(let turns) = $0 { turns } else { nil } }).first {
            arguments += ["-rotate", String(turns * 90)]
        }
        if let quality = damage.compactMap({ if case .jpeg(let quality) = $0 { quality } else { nil } }).first {
            arguments += ["-quality", String(quality)]
        }
        arguments += ["-colorspace", "Gray", url.path]
        try convert(arguments)
    }

    private static func render(_ page: Page, to url: URL) throws {
        var arguments = [
            "-size", "\(page.width)x\(page.height)", "xc:white", "-font", page.font, "-pointsize",
            String(page.pointSize), "-fill", "black",
        ]
        let lineHeight = page.pointSize * 17 / 10
        for (index, line) in page.lines.enumerated() {
            arguments += ["-annotate", "+80+\(120 + index * lineHeight)", line]
        }
        for piece in page.placed { arguments += ["-annotate", "+\(piece.x)+\(piece.y)", piece.text] }
        try convert(arguments + [url.path])
    }

    /// ImageMagick's convert with `arguments`, the last the file it writes (made once: TestMedia).
    private static func convert(_ arguments: [String]) throws {
        let result = try TestMedia.program(
            "/usr/bin/convert", Array(arguments.dropLast()), output: arguments.last ?? "")
        guard result.status == 0 else {
            throw CPluginBuilder.BuildFailure(message: "convert failed: \(result.standardError)")
        }
    }
}
