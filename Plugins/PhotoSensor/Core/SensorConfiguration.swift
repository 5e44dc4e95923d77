import Foundation

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

    public init() {}

    /// Reads the settings through `lookup` (the plugin's namespace: "watchDirectories" is
    /// "photo-sensor.watchDirectories"). A list setting arrives comma-joined.
    public init(_ lookup: (String) -> String?) {
        func flag(_ key: String, _ fallback: Bool) -> Bool {
            guard let text = lookup(key)?.lowercased() else { return fallback }
            return ["true", "1", "yes", "on"].contains(text)
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
        syncInterval = lookup("syncInterval").flatMap(Double.init).map { max(0.05, $0) } ?? syncInterval
        onlyWhenOnline = flag("onlyWhenOnline", true)
        batteryChargingOnly = flag("batteryChargingOnly", false)
        recognitionMinConfidence =
            lookup("recognitionMinConfidence").flatMap(Double.init).map { min(max(0, $0), 1) } ?? 0.5
        recognitionImageSize =
            lookup("recognitionImageSize").flatMap(Int.init).map { min(max(64, $0), 4096) } ?? 640
        batchSize = lookup("batchSize").flatMap(Int.init).map { min(max(1, $0), 1000) } ?? batchSize
        removeAfterSync = flag("removeAfterSync", false)
        transparency = flag("transparency", true)
        folderRetrySeconds =
            lookup("folderRetrySeconds").flatMap(Double.init).map { max(0.1, $0) } ?? folderRetrySeconds
        debounceSeconds = lookup("debounceSeconds").flatMap(Double.init).map { max(0.05, $0) } ?? debounceSeconds
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
