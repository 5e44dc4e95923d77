import Foundation
import PluginAPI

/// How urgently something is said, as Speech Dispatcher's priorities (`ASSIST_PRIORITY_*`).
///
///     host.speak("Battery low", priority: .important)
public enum SpeechPriority: Int32, Sendable, CaseIterable {
    /// Spoken next; postpones message and text, which resume at their word.
    case important = 0
    /// After important and other messages; postpones text (it resumes at its word), cancels notification and
    /// progress.
    case message = 1
    /// After important, message and text; cancels notification and progress.
    case text = 2
    /// Spoken only when nothing speaks or waits, else dropped.
    case notification = 3
    /// Like notification, but the latest is kept and spoken when idle.
    case progress = 4
}

/// A log line's level (`ASSIST_LOG_*`). Log lines are never spoken.
///
///     host.log(.warning, "the model file is old")
public enum LogLevel: Int32, Sendable, CaseIterable {
    case debug = 0
    case info = 1
    case warning = 2
    case error = 3
    case fatal = 4
    /// This plugin broke the contract itself (what the host writes about a plugin).
    case pluginMisbehaving = 5
    /// The host broke the contract (a NULL it promised, a call on the wrong thread).
    case hostMisbehaving = 6
}

/// An earcon the host plays (`assist.cues/1`), at the cue volume the user chose.
///
///     host.play(.success)
public struct Earcon: RawRepresentable, Hashable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let tap = Earcon(rawValue: "tap")
    public static let success = Earcon(rawValue: "success")
    public static let error = Earcon(rawValue: "error")
    public static let stable = Earcon(rawValue: "stable")
    public static let end = Earcon(rawValue: "end")
    public static let found = Earcon(rawValue: "found")
    public static let lost = Earcon(rawValue: "lost")
    public static let listen = Earcon(rawValue: "listen")
    /// A speed change up.
    public static let rise = Earcon(rawValue: "rise")
    /// A speed change down.
    public static let fall = Earcon(rawValue: "fall")
}

/// A guidance pattern (`ASSIST_CUE_*`): where the target is.
public enum GuidancePattern: Int32, Sendable, CaseIterable {
    case left = 0
    case right = 1
    case above = 2
    case below = 3
    case centred = 4
    /// A steady tone at `pitchHz` that glides to each new call's pitch at once (a meter); a
    /// host that does not know it plays nothing (fall back to `centred` with `pitchHz`).
    case tone = 5
}

/// A failed call: its `assist_status` code and the host's sentence (or the code's name). Equal when the codes
/// are, so `catch PluginStatus.busy` works.
///
///     do { try host.enqueue(request) } catch PluginStatus.invalid { ... }
public struct PluginStatus: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    /// One speakable sentence: the host's reason when it gave one.
    public let message: String

    public init(_ code: Int32, message: String? = nil) {
        self.code = code
        self.message = message ?? String(cString: assist_status_name(code))
    }

    public var description: String { message }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public static let ok = PluginStatus(ASSIST_OK)
    public static let invalid = PluginStatus(ASSIST_E_INVALID)
    public static let unsupported = PluginStatus(ASSIST_E_UNSUPPORTED)
    public static let noMemory = PluginStatus(ASSIST_E_NOMEM)
    public static let busy = PluginStatus(ASSIST_E_BUSY)
    public static let io = PluginStatus(ASSIST_E_IO)
    public static let timeout = PluginStatus(ASSIST_E_TIMEOUT)
    public static let permission = PluginStatus(ASSIST_E_PERMISSION)
    public static let locked = PluginStatus(ASSIST_E_LOCKED)
    public static let notFound = PluginStatus(ASSIST_E_NOT_FOUND)
    public static let `internal` = PluginStatus(ASSIST_E_INTERNAL)
    public static let cancelled = PluginStatus(ASSIST_E_CANCELLED)

    /// Throws for a failed `status`, taking (and freeing) the host's `*err` sentence, or `otherwise` when the
    /// host gave none.
    static func check(_ status: Int32, _ error: UnsafeMutablePointer<CChar>? = nil, otherwise: String? = nil)
        throws(PluginStatus)
    {
        let message = error.map { String(cString: $0) } ?? otherwise
        free(error)
        guard status == ASSIST_OK else { throw PluginStatus(status, message: message) }
    }
}
