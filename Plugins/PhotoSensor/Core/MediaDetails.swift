import CMediaInfo
import Foundation

/// What a row says about a file besides its identity (spec §3.12–3.14): the size as displayed, when it was
/// taken, how long it plays. Read with libjpeg (a JPEG's size from its header), libavformat (every other still
/// and moving format FFmpeg knows), libheif (HEIF/AVIF) and libexif (a JPEG's or HEIF's orientation and
/// original date), each opened on first use.
public struct MediaDetails: Equatable, Sendable {
    public var width = 0
    public var height = 0
    /// Seconds; 0 for stills.
    public var duration = 0.0
    /// From EXIF `DateTimeOriginal`, in ms since 1970; nil when absent or invalid (the row uses the mtime).
    public var takenMs: Int64?
    /// True when a real video stream was found (an Ogg file is a video then, else a sound).
    public var hasVideo = false
    /// False when the header could not be read (the caller retries, then records 0×0).
    public var readable = true

    public init() {}

    /// Reads `path`, whose content was sniffed as `format`.
    public static func read(_ path: String, format: MediaFormat) -> MediaDetails {
        var info = assist_media_info()
        var details = MediaDetails()
        switch format {
        case .jpeg:
            // The size from the frame header (libjpeg decodes nothing for it), orientation and date from EXIF.
            details.readable = assist_media_jpeg_size(path, &info) == ASSIST_MEDIA_INFO_OK
            details.width = Int(info.width)
            details.height = Int(info.height)
            _ = assist_media_exif(path, &info)
        case .heif, .avif:
            details.readable = assist_media_heif(path, &info) == ASSIST_MEDIA_INFO_OK
            details.width = Int(info.width)
            details.height = Int(info.height)
        default:
            details.readable = assist_media_probe(path, &info) == ASSIST_MEDIA_INFO_OK
            details.hasVideo = info.has_video != 0
            if format.kind != .audio || format == .ogg {
                let turned = info.rotation == 90 || info.rotation == 270
                details.width = Int(turned ? info.height : info.width)
                details.height = Int(turned ? info.width : info.height)
            }
            if format.kind != .image { details.duration = max(0, info.duration.isFinite ? info.duration : 0) }
        }
        if format.kind == .image {
            if (5...8).contains(info.exif_orientation) { swap(&details.width, &details.height) }
            details.takenMs = takenMs(date: text(info.exif_date), offset: text(info.exif_offset))
        }
        if format.kind == .image && (details.width <= 0 || details.height <= 0) { details.readable = false }
        if !details.readable { details.width = 0; details.height = 0 }
        return details
    }

    /// EXIF's `YYYY:MM:DD HH:MM:SS` with an optional `±HH:MM` offset, as ms since 1970; without an offset the
    /// local time zone applies. Nil for anything else, including the all-zero date cameras write when unset.
    public static func takenMs(date: String, offset: String, zone: TimeZone = .current) -> Int64? {
        let digits = Array(date.utf8)
        guard digits.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (48...57).contains(digits[index]) else { return nil }
                value = value * 10 + Int(digits[index] - 48)
            }
            return value
        }
        for (index, separator) in [
            (4, UInt8(ascii: ":")), (7, UInt8(ascii: ":")), (10, UInt8(ascii: " ")),
            (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")),
        ]
        where digits[index] != separator {
            return nil
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1900...2999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        if let seconds = offsetSeconds(offset), let fixed = TimeZone(secondsFromGMT: seconds) {
            calendar.timeZone = fixed
        }
        let parts = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // A day past the month's end (31 April) is not a date.
        guard let date = calendar.date(from: parts), calendar.component(.day, from: date) == day else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// `+05:30` → 19800; nil unless it is exactly `±HH:MM` within ±14 h.
    static func offsetSeconds(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 6, bytes[0] == 43 || bytes[0] == 45, bytes[3] == 58,
            [1, 2, 4, 5].allSatisfy({ (48...57).contains(bytes[$0]) })
        else { return nil }
        let hours = Int(bytes[1] - 48) * 10 + Int(bytes[2] - 48)
        let minutes = Int(bytes[4] - 48) * 10 + Int(bytes[5] - 48)
        guard hours <= 14, minutes < 60 else { return nil }
        return (bytes[0] == 45 ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    /// A fixed C character array as a Swift string, up to its first NUL.
    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
