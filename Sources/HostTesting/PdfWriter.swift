import Foundation

/// Writes small PDF documents for read-text's tests, byte by byte as the PDF 1.4 reference lays them out: pages
/// with a text layer (Helvetica, one of the standard fonts, so nothing is embedded) and scanned pages (a grey
/// JPEG drawn over the whole page, no text layer), with the cross-reference table a reader looks objects up in.
package struct PdfWriter {
    /// One page: its size in points, and either lines of text or a scan.
    package enum Page {
        case text([String], width: Int = 300, height: Int = 400, pointSize: Int = 11)
        /// Lines each in its own size, bold (Helvetica-Bold) or not: a letter's headings and body.
        case styled([StyledLine], width: Int = 400, height: Int = 600)
        /// Pieces of text each where it is put: a table's cells, two columns.
        case placed([PlacedText], width: Int = 400, height: Int = 600)
        /// A JPEG in 8-bit grey, drawn over the whole page.
        case scan(jpeg: Data, pixelWidth: Int, pixelHeight: Int, width: Int = 300, height: Int = 400)
    }

    /// One line of a styled page.
    package struct StyledLine {
        package var text: String
        package var pointSize: Int
        package var bold: Bool

        package init(_ text: String, pointSize: Int = 11, bold: Bool = false) {
            self.text = text
            self.pointSize = pointSize
            self.bold = bold
        }
    }

    /// Text put at a place: `x` from the page's left edge, `y` from its top to the text's baseline, in points.
    package struct PlacedText {
        package var text: String
        package var x: Int
        package var y: Int
        package var pointSize: Int
        package var bold: Bool

        package init(_ text: String, x: Int, y: Int, pointSize: Int = 11, bold: Bool = false) {
            self.text = text
            self.x = x
            self.y = y
            self.pointSize = pointSize
            self.bold = bold
        }
    }

    package var pages: [Page]

    package init(pages: [Page]) { self.pages = pages }

    /// The document's bytes.
    package func data() -> Data {
        var objects: [Data] = []
        func add(_ text: String) -> Int {
            objects.append(Data(text.utf8))
            return objects.count
        }
        func add(_ head: String, stream: Data) -> Int {
            var data = Data((head + "\nstream\n").utf8)
            data.append(stream)
            data.append(Data("\nendstream".utf8))
            objects.append(data)
            return objects.count
        }
        let catalog = add("<< /Type /Catalog /Pages 2 0 R >>")
        let pagesIndex = add("")  // filled once the kids are known
        let font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        let boldFont = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
        var kids: [Int] = []
        // A page of `width` x `height` points drawn by `content` with `resources`.
        func page(width: Int, height: Int, resources: String, content: String) {
            let stream = add("<< /Length \(content.utf8.count) >>", stream: Data(content.utf8))
            kids.append(
                add(
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Resources \(resources) "
                        + "/Contents \(stream) 0 R >>"))
        }
        for item in pages {
            switch item {
            case .text(let lines, let width, let height, let size):
                let shown = lines.map { "(\(Self.escaped($0))) Tj T*" }.joined(separator: "\n")
                page(
                    width: width, height: height, resources: "<< /Font << /F1 \(font) 0 R >> >>",
                    content: "BT /F1 \(size) Tf \(size * 3 / 2) TL 24 \(height - 36) Td\n\(shown)\nET")
            case .styled(let lines, let width, let height):
                // Each line below the one before by one and a half times its own size.
                var shown = "24 \(height - 36) Td\n"
                for (index, line) in lines.enumerated() {
                    let step = index == 0 ? 0 : line.pointSize * 3 / 2
                    shown +=
                        "0 -\(step) Td /\(line.bold ? "F2" : "F1") \(line.pointSize) Tf (\(Self.escaped(line.text))) Tj\n"
                }
                page(
                    width: width, height: height,
                    resources: "<< /Font << /F1 \(font) 0 R /F2 \(boldFont) 0 R >> >>", content: "BT \(shown)ET")
            case .placed(let pieces, let width, let height):
                let shown = pieces.map { piece in
                    "BT /\(piece.bold ? "F2" : "F1") \(piece.pointSize) Tf \(piece.x) \(height - piece.y) Td "
                        + "(\(Self.escaped(piece.text))) Tj ET"
                }
                page(
                    width: width, height: height,
                    resources: "<< /Font << /F1 \(font) 0 R /F2 \(boldFont) 0 R >> >>",
                    content: shown.joined(separator: "\n"))
            case .scan(let jpeg, let pixelWidth, let pixelHeight, let width, let height):
                let image = add(
                    "<< /Type /XObject /Subtype /Image /Width \(pixelWidth) /Height \(pixelHeight) "
                        + "/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length \(jpeg.count) >>",
                    stream: jpeg)
                page(
                    width: width, height: height, resources: "<< /XObject << /Im1 \(image) 0 R >> >>",
                    content: "q \(width) 0 0 \(height) 0 0 cm /Im1 Do Q")
            }
        }
        objects[pagesIndex - 1] = Data(
            "<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(kids.count) >>".utf8)
        _ = catalog
        var output = Data("%PDF-1.4\n%\u{e2}\u{e3}\u{cf}\u{d3}\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(output.count)
            output.append(Data("\(index + 1) 0 obj\n".utf8))
            output.append(object)
            output.append(Data("\nendobj\n".utf8))
        }
        let table = output.count
        var xref = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { xref += String(format: "%010d 00000 n \n", offset) }
        xref += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n"
        output.append(Data(xref.utf8))
        return output
    }

    /// `text` inside a PDF string: backslashes and parentheses escaped.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(")
            .replacingOccurrences(of: ")", with: "\\)")
    }
}

extension PdfWriter.Page {
    /// A scan in the JPEG at `url` as an A4 page: a picture turned is larger than the page drawn, so its size is
    /// read as it is (ImageMagick's `identify`).
    package static func a4Scan(_ url: URL) throws -> PdfWriter.Page {
        let size = try ProcessRunner.run("/usr/bin/identify", ["-format", "%w %h", url.path])
        let pixels = size.standardOutput.split(separator: " ").compactMap { Int($0) }
        guard pixels.count == 2 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return .scan(
            jpeg: try Data(contentsOf: url), pixelWidth: pixels[0], pixelHeight: pixels[1], width: 595, height: 842)
    }
}
