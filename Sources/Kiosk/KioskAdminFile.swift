import AssistCore
import Foundation

/// What the admin changed from the kiosk's admin menu, after the PIN: `<data>/kiosk-admin.toml` (0600, in the
/// device's data folder, never a sitting's). It is read as one more admin layer after `/etc/assist`, so it
/// holds features allowed there (`kiosk.features.ID = "<SHA-256>"`, the library as it was when the admin
/// chose it), features taken back (`= "off"`) and settings every person starts with.
package struct KioskAdminFile: Sendable {
    package let url: URL

    package init(device data: URL) {
        url = data.appendingPathComponent("kiosk-admin.toml")
    }

    /// Its entries; empty when there is none. A file that cannot be read is a problem to say, not a stop.
    package func load() -> Result<[String: SettingValue], KioskProblem> {
        guard FileManager.default.fileExists(atPath: url.path) else { return .success([:]) }
        do {
            return .success(try ConfigFile.parse(try String(contentsOf: url, encoding: .utf8)))
        } catch let error as ConfigFile.ParseError {
            return .failure(
                KioskProblem(
                    "\(error.at(url.path)); the admin menu's choices are not used until it is fixed or removed"
                ))
        } catch {
            return .failure(
                KioskProblem("\(url.path) cannot be read; the admin menu's choices are not used until it can"))
        }
    }

    /// Sets `key` to `value` (nil removes it) and writes the file again, whole and atomically.
    package func set(_ key: String, _ value: SettingValue?) throws {
        var entries = (try? load().get()) ?? [:]
        entries[key] = value
        try SettingsFiles.write(entries, to: url)
    }
}
