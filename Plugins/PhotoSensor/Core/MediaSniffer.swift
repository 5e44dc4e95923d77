/// What a file holds, decided from its first bytes (photo-sensor spec §3.4): content wins over the extension.
public enum MediaKind: Int, Sendable, Equatable {
    /// `mediaType` values of the `ios_photos` table.
    case image = 1, video = 2, audio = 3
}

/// The container or codec family a file's first bytes announce.
public enum MediaFormat: String, Sendable, Equatable {
    case jpeg, png, gif, webp, tiff, bmp, heif, avif
    case isoVideo = "iso-video", matroska, avi
    case isoAudio = "iso-audio", wave, flac, mp3, ogg

    /// Still or moving picture, or sound. Ogg is sound until probing finds a video stream.
    public var kind: MediaKind {
        switch self {
        case .jpeg, .png, .gif, .webp, .tiff, .bmp, .heif, .avif: return .image
        case .isoVideo, .matroska, .avi: return .video
        case .isoAudio, .wave, .flac, .mp3, .ogg: return .audio
        }
    }
}

/// Magic numbers for every format the sensor records, and the names it never looks at. Pure functions.
public enum MediaSniffer {
    /// Bytes to read from the start of a file for `sniff`.
    public static let headerBytes = 64

    /// The format the header announces, or nil for unknown content (ignored, whatever the extension says).
    public static func sniff(_ header: some Collection<UInt8>) -> MediaFormat? {
        let bytes = Array(header.prefix(headerBytes))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii("GIF87a") || ascii("GIF89a") { return .gif }
        if ascii("RIFF") && bytes.count >= 12 {
            if ascii("WEBP", at: 8) { return .webp }
            if ascii("AVI ", at: 8) { return .avi }
            if ascii("WAVE", at: 8) { return .wave }
            return nil
        }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if ascii("BM") && bytes.count >= 14 { return .bmp }
        if ascii("ftyp", at: 4) && bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "mif1", "msf1": return .heif
            case "avif", "avis": return .avif
            case "M4A ", "M4B ", "M4P ": return .isoAudio
            default: return .isoVideo
            }
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return .matroska }
        if ascii("fLaC") { return .flac }
        if ascii("OggS") { return .ogg }
        if ascii("ID3") { return .mp3 }
        // An MPEG audio frame: 11 set sync bits, a valid version and layer, a bitrate index not 15.
        if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0, bytes[1] & 0x18 != 0x08,
            bytes[1] & 0x06 != 0, bytes[2] & 0xF0 != 0xF0
        {
            return .mp3
        }
        return nil
    }

    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "avif", "tif", "tiff", "bmp",
    ]
    static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "webm", "avi", "3gp"]
    static let audioExtensions: Set<String> = ["wav", "mp3", "m4a", "aac", "flac", "ogg", "opus"]
    static let temporarySuffixes = ["~", ".part", ".partial", ".crdownload", ".download", ".tmp", ".swp"]

    /// False for names no writer means as finished media: hidden, backup and partial-download names.
    public static func isWorthLooking(atName name: String) -> Bool {
        if name.isEmpty || name.hasPrefix(".") || name.hasPrefix(".goutputstream-") { return false }
        let lower = name.lowercased()
        return !temporarySuffixes.contains { lower.hasSuffix($0) }
    }

    /// The kind the extension suggests, or nil for other names (still sniffed: content wins).
    public static func kind(forExtensionOf name: String, includeAudio: Bool) -> MediaKind? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        if imageExtensions.contains(ext) { return .image }
        if videoExtensions.contains(ext) { return .video }
        if includeAudio && audioExtensions.contains(ext) { return .audio }
        return nil
    }

    /// What the sensor records for a file with this name and header: the format when the content is known
    /// media (audio only with `includeAudio`), else nil.
    public static func classify(name: String, header: some Collection<UInt8>, includeAudio: Bool) -> MediaFormat? {
        guard isWorthLooking(atName: name), let format = sniff(header) else { return nil }
        if format.kind == .audio && !includeAudio { return nil }
        return format
    }
}
