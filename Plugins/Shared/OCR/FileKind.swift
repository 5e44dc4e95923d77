import Foundation

/// What a file that is neither a picture nor a PDF really is, told by its first bytes, so that a person given
/// one (a web page saved as "bill.pdf", a Word file, a video) hears what it is and what to do, rather than a
/// list of picture formats. Nil for what it cannot tell.
public enum FileKind {
    /// "is a web page (HTML), not a picture: …" for the file at `path` (`expected` what the feature reads: "a
    /// picture", or for read-text's `--file` "a picture or a PDF"); nil when it cannot tell.
    public static func named(_ path: String, expected: String = "a picture") -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        let head: Data
        do { head = try file.read(upToCount: 512) ?? Data() } catch { return nil }
        guard let kind = kind(of: [UInt8](head)) else { return nil }
        return "is \(kind.what), not \(expected): \(kind.fix)"
    }

    /// What `head` (a file's first bytes) is, and what to do with such a file.
    static func kind(of head: [UInt8]) -> (what: String, fix: String)? {
        if head.isEmpty { return ("empty", "it holds nothing to read; give the file again") }
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        // A picture's own start (a GIF's or a PNM's is text): a damaged picture, which the loader names as such.
        let pictures: [[UInt8]] = [
            Array("GIF8".utf8), [0x89, 0x50, 0x4E, 0x47], [0xFF, 0xD8], Array("II*".utf8), [0x4D, 0x4D, 0x00, 0x2A],
            Array("BM".utf8), Array("RIFF".utf8),
        ]
        if pictures.contains(where: { starts($0) }) { return nil }
        if head.count >= 3, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(head[1]),
            [0x20, 0x09, 0x0A, 0x0D].contains(head[2])
        {
            return nil
        }
        if starts([0x50, 0x4B, 0x03, 0x04]) {
            return (
                "a ZIP archive (a Word, OpenDocument or EPUB file is one)",
                "open it in its program and save or print it as a PDF, then give that"
            )
        }
        if starts([0xD0, 0xCF, 0x11, 0xE0]) {
            return (
                "an old Microsoft Office file", "open it in its program and save or print it as a PDF, then give that"
            )
        }
        if starts(Array("{\\rtf".utf8)) {
            return (
                "a rich text (RTF) file", "open it in a word processor and save or print it as a PDF, then give that"
            )
        }
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = String(decoding: head.count >= 12 ? head[8..<12] : [], as: UTF8.self)
            if ["heic", "heix", "mif1", "msf1", "avif"].contains(brand) {
                return (
                    "a HEIC or AVIF photo (a phone's)", "save it as JPEG on the phone, or convert it, then give that"
                )
            }
            return ("a video", "take a photo instead")
        }
        // Text: a byte-order mark and spaces skipped, a web page by its first tag; other text by its bytes.
        var text = head
        if starts([0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
        let start = String(decoding: text.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .lowercased()
        if start.hasPrefix("<!doctype html") || start.hasPrefix("<html") || start.hasPrefix("<head")
            || start.hasPrefix("<body")
        {
            return (
                "a web page (HTML)",
                "a server may have sent an error page instead of the file; download it again"
            )
        }
        if start.hasPrefix("<?xml") || start.hasPrefix("<svg") {
            return ("an XML or SVG file", "save or print it as a PDF, then give that")
        }
        let printable = text.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        // UTF-8 throughout, the last letter allowed to be cut by the 512 bytes read.
        let cut = head.count == 512 ? min(3, text.count - 1) : 0
        if printable, (0...max(0, cut)).contains(where: { String(validating: text.dropLast($0), as: UTF8.self) != nil })
        {
            return ("plain text", "open it in a text editor, or give it to a screen reader")
        }
        return nil
    }
}
