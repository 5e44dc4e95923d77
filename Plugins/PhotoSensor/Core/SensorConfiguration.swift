import Foundation
import PluginKit

/// The `[photo-sensor]` table of the config files, under the AWARE names study teams know (spec §3.1, §3.22).
public struct SensorConfiguration: Equatable, Sendable {
    public var watchDirectories: [String] = []
    public var recursive = false
    public var includeAudio = false
    public var performRecognition = false
    public var serverType = "aware-micro-form"
    public var serverUrl: String?
    public var studyNumber: String?
    public var studyKey: String?
    /// Minutes between automatic syncs.
    public var syncInterval = 1.0
    public var onlyWhenOnline = true
    /// Automatic runs only on mains power or while the battery charges.
    public var batteryChargingOnly = false
    /// Recognition: the smallest confidence kept, and the square the picture is scaled into.
    public var recognitionMinConfidence = 0.5
    public var recognitionImageSize = 640
    public var batchSize = 1000
    public var removeAfterSync = false
    /// Say at host start that the sensor is on and what it watches.
    public var transparency = true
    /// Seconds a path must be quiet before it is processed.
    public var debounceSeconds = 1.0
    /// Seconds between tries to watch a folder that is missing or was deleted (spec §7: 60).
    public var folderRetrySeconds = 60.0
    /// One sentence for each value that is not what its key takes, naming the key, the value and what is
    /// used instead: said by `status` and `watch --once`, logged at start.
    public var problems: [String] = []

    public init() {}

    /// Reads the settings through `lookup` (the plugin's namespace: "watchDirectories" is
    /// "photo-sensor.watchDirectories"). A list setting arrives comma-joined.
    public init(phrases: PhraseTable, _ lookup: (String) -> String?) {
        var problems: [String] = []
        func flag(_ key: String, _ fallback: Bool) -> Bool {
            guard let text = lookup(key) else { return fallback }
            switch text.lowercased() {
            case "true": return true
            case "false": return false
            case "1", "yes", "on":
                problems.append(phrases.text("setting-taken-true", ["key": key, "text": text]))
                return true
            case "0", "no", "off":
                problems.append(phrases.text("setting-taken-false", ["key": key, "text": text]))
                return false
            default:
                problems.append(
                    phrases.text("setting-not-boolean", ["key": key, "text": text, "fallback": "\(fallback)"]))
                return fallback
            }
        }
        /// A number within `range`, or `fallback` (said) when the value is not a number or outside it.
        func number<Value: Comparable & LosslessStringConvertible>(
            _ key: String, _ range: ClosedRange<Value>, _ fallback: Value, _ unit: String = ""
        ) -> Value {
            guard let text = lookup(key) else { return fallback }
            /// "1 minute", "10080 minutes", "0.5": numbers as a person writes them, with the unit.
            func said(_ value: Value) -> String {
                var written = "\(value)"
                if written.hasSuffix(".0") { written.removeLast(2) }
                guard !unit.isEmpty else { return written }
                return phrases.text("unit-\(unit)" + (written == "1" ? "-one" : ""), ["count": written])
            }
            guard let value = Value(text.trimmingCharacters(in: .whitespaces)) else {
                problems.append(
                    phrases.text("setting-not-number", ["key": key, "text": text, "fallback": said(fallback)]))
                return fallback
            }
            guard range.contains(value) else {
                var lowest = "\(range.lowerBound)"
                if lowest.hasSuffix(".0") { lowest.removeLast(2) }
                problems.append(
                    phrases.text(
                        "setting-outside",
                        [
                            "key": key, "text": text, "low": lowest, "high": said(range.upperBound),
                            "fallback": said(fallback),
                        ]))
                return fallback
            }
            return value
        }
        watchDirectories = (lookup("watchDirectories") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map { ($0 as NSString).expandingTildeInPath }
        recursive = flag("recursive", false)
        includeAudio = flag("includeAudio", false)
        performRecognition = flag("performRecognition", false)
        serverType = lookup("serverType") ?? serverType
        serverUrl = lookup("serverUrl").flatMap { $0.isEmpty ? nil : $0 }
        studyNumber = lookup("studyNumber").flatMap { $0.isEmpty ? nil : $0 }
        studyKey = lookup("studyKey").flatMap { $0.isEmpty ? nil : $0 }
        syncInterval = number("syncInterval", 0.01...10_080, syncInterval, "minute")
        onlyWhenOnline = flag("onlyWhenOnline", true)
        batteryChargingOnly = flag("batteryChargingOnly", false)
        recognitionMinConfidence = number("recognitionMinConfidence", 0...1, 0.5)
        recognitionImageSize = number("recognitionImageSize", 64...4096, 640, "pixel")
        batchSize = number("batchSize", 1...1000, batchSize, "row")
        removeAfterSync = flag("removeAfterSync", false)
        transparency = flag("transparency", true)
        folderRetrySeconds = number("folderRetrySeconds", 0.1...86_400, folderRetrySeconds, "second")
        debounceSeconds = number("debounceSeconds", 0.05...3_600, debounceSeconds, "second")
        self.problems = problems
    }

    /// True when rows can be sent: a server, a study number and a key.
    public var canSync: Bool { serverUrl != nil && studyNumber != nil && studyKey != nil }
}

/// The original AWARE event names (spec §3.19).
public enum SensorEvents {
    static let prefix = "com.awareframework.ios.sensor.photos"
    public static let photoTaken = prefix + ".ACTION_AWARE_PHOTO_TAKEN"
    public static let recognized = prefix + ".ACTION_AWARE_PHOTOS_RECOGNIZED"
    public static let changed = prefix
    public static let start = prefix + ".SENSOR_START"
    public static let stop = prefix + ".SENSOR_STOP"
    public static let sync = prefix + ".SENSOR_SYNC"
    public static let setLabel = prefix + ".SET_LABEL"
    public static let syncCompletion = prefix + ".SENSOR_SYNC_COMPLETION"
}
