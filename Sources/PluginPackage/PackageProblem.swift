import Foundation

/// What a package may hold at most. Plugins are a library, a manifest and a few sounds or models: the limits
/// are far above any real plugin and far below what would fill a disk.
package struct PackageLimits: Sendable {
    /// Files and folders, together.
    package var entries = 2_000
    /// All files, unpacked.
    package var bytes: Int64 = 512 << 20
    /// manifest.json and SHA256SUMS, each.
    package var textBytes = 1 << 20
    /// Characters in one path, and folders in one path.
    package var pathLength = 240
    package var depth = 12

    package init() {}

    package static let standard = PackageLimits()
}

/// Why an entry's name cannot be unpacked.
package enum PathFault: Equatable, Sendable {
    case outside
    case controlCharacter
    case backslash
    /// "a//b", "a/./b": a folder with no name between two slashes.
    case emptyFolder
    case tooDeep(Int, limit: Int)
    case tooLong(Int, limit: Int)
}

/// Why a package was refused: each is one sentence saying what is wrong and what to do.
package enum PackageProblem: Error, Equatable, CustomStringConvertible {
    /// Not an archive at all, or not readable.
    case unreadable(String)
    /// A folder was given where the package file was expected.
    case folder(String)
    /// An archive that ends early or is corrupt.
    case damaged(String)
    /// An entry whose name would leave the plugin's folder (`..`, an absolute name), or that no plugin's file
    /// could have (a control character, a backslash, too deep or too long): the name and why.
    case unsafePath(String, PathFault)
    /// A symbolic or hard link.
    case link(String)
    /// A device, a pipe or another special file.
    case special(String)
    /// The same name twice (a later entry would replace an earlier, checked one).
    case duplicate(String)
    case tooManyEntries(Int)
    case tooBig(Int64)
    case noManifest
    case noChecksums
    case checksumMismatch(String)
    case unlisted(String)
    case missing(String)
    /// The file changed between the check and the unpacking.
    case changed(String)
    /// The unpacked copy could not be written.
    case cannotWrite(String)

    package var description: String {
        switch self {
        case .unreadable(let detail):
            return "The package cannot be read (\(detail)); check that it is an .assist-plugin file."
        case .folder(let path):
            return "\(path) is a folder, not a package; make one of it first with assist plugins pack \(path)."
        case .damaged(let detail):
            return "The package is damaged or incomplete (\(detail)); download it again."
        case .unsafePath(let raw, let fault):
            // A control character is shown as its code, so the name read out is the name in the archive.
            let name = raw.unicodeScalars.map { scalar in
                scalar.value < 0x20 || scalar.value == 0x7F
                    ? String(format: "\\u%04X", scalar.value) : String(scalar)
            }.joined()
            switch fault {
            case .outside:
                return "The package is refused: its entry “\(name)” would be written outside the plugin's folder."
            case .controlCharacter:
                return
                    "The package is refused: its entry “\(name)” has a control character in its name; rename the file and pack it again."
            case .backslash:
                return
                    "The package is refused: its entry “\(name)” has a backslash in its name, which is not a folder separator here; use / between folders or rename the file, and pack it again."
            case .emptyFolder:
                return
                    "The package is refused: its entry “\(name)” has an empty or “.” folder in its name; make the package again with assist plugins pack."
            case .tooDeep(let depth, let limit):
                return
                    "The package is refused: its entry “\(name.prefix(120))” is \(depth) levels deep, and a package may go \(limit) deep at most."
            case .tooLong(let length, let limit):
                return
                    "The package is refused: an entry's name is \(length) characters long (“\(name.prefix(60))…”), and a package's names may have \(limit) at most."
            }
        case .link(let name):
            return "The package is refused: “\(name)” is a link, and a package may hold only files and folders."
        case .special(let name):
            return
                "The package is refused: “\(name)” is a device or another special file, and a package may hold only files and folders."
        case .duplicate(let name):
            return "The package is refused: it holds “\(name)” twice."
        case .tooManyEntries(let limit):
            return "The package is refused: it holds more than \(limit) files and folders."
        case .tooBig(let limit):
            return "The package is refused: it unpacks to more than \(limit >> 20) MB."
        case .noManifest:
            return "The package has no manifest.json at its top; make it with assist plugins pack."
        case .noChecksums:
            return "The package has no SHA256SUMS at its top; make it with assist plugins pack."
        case .checksumMismatch(let name):
            return "The package is damaged: “\(name)” does not match its SHA-256 in SHA256SUMS; download it again."
        case .unlisted(let name):
            return "The package is refused: “\(name)” has no SHA-256 in SHA256SUMS."
        case .missing(let name):
            return "The package is damaged: SHA256SUMS lists “\(name)”, which it does not hold; download it again."
        case .changed(let name):
            return "The package changed while it was being installed (“\(name)”); install it again."
        case .cannotWrite(let detail):
            return "The plugin cannot be unpacked: \(detail)."
        }
    }
}
