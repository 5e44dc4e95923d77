internal import CMediaAPI
import Foundation

/// libAssistMedia.so, FFmpeg behind a table of functions, opened the first time the camera is used: commands
/// that never touch a camera do not load FFmpeg at all, a camera loads its scaler, and the first picture or video
/// file its decoders with the hundred-odd libraries they need.
enum MediaLibrary {
    /// The table, or why it could not be had; loaded once.
    static let loaded: Result<assist_media_api, CameraError> = load()

    static func api() throws(CameraError) -> assist_media_api { try loaded.get() }

    /// Where the library is looked for: `$ASSIST_MEDIA_LIBRARY`, beside the executable (a build folder), then
    /// `../lib/assist` from it (an installed prefix).
    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let name = "libAssistMedia.so"
        var paths = environment["ASSIST_MEDIA_LIBRARY"].map { [$0] } ?? []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
            paths.append(folder.appendingPathComponent(name).path)
            paths.append(folder.deletingLastPathComponent().appendingPathComponent("lib/assist/\(name)").path)
        }
        return paths
    }

    private static func load() -> Result<assist_media_api, CameraError> {
        var reasons: [String] = []
        for path in candidates() where FileManager.default.fileExists(atPath: path) {
            // Never closed (P11): the table's functions stay valid for the life of the process.
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? "\(path) cannot be opened")
                continue
            }
            guard let symbol = dlsym(handle, ASSIST_MEDIA_API_SYMBOL) else {
                reasons.append("\(path) has no \(ASSIST_MEDIA_API_SYMBOL)")
                continue
            }
            let get = unsafeBitCast(symbol, to: assist_media_api_get_fn.self)
            guard let table = get(), table.pointee.version >= ASSIST_MEDIA_API_VERSION else {
                reasons.append("\(path) has an older table")
                continue
            }
            return .success(table.pointee)
        }
        let looked = candidates().joined(separator: ", ")
        return .failure(.incomplete(reasons.isEmpty ? "not found in \(looked)" : reasons.joined(separator: "; ")))
    }
}
