import AssistCore
import Foundation
import View

/// The kiosk's large print view (docs/kiosk.md, `[kiosk] view = true`): the kiosk serves its page on a fixed
/// port, and `assist kiosk view` (assist-kiosk-view@.service) shows it full-screen: Chromium in kiosk mode
/// inside `cage`, a compositor for one program.
package enum KioskView {
    /// The kiosk's page's port when `view.port` does not give one: fixed, so the view's unit finds it.
    package static let defaultPort = 47_470

    /// The port a kiosk's view listens on.
    package static func port(_ settings: SettingsStore) -> Int {
        settings.value("view.port")?.integer.flatMap { $0 > 0 && $0 <= 65_535 ? Int($0) : nil } ?? defaultPort
    }

    /// Waits up to `waitSeconds` for the kiosk's page, then replaces this process with cage running the browser
    /// on it. Throws (exit 78) when cage or the browser is missing, naming the package, and (exit 1) when the
    /// page does not answer.
    package static func open(options: HostOptions, waitSeconds: Int) throws {
        let settings = SettingsStore()
        _ = settings.loadStandardFiles(explicit: options.config, explicitIsAdmin: true)
        let port = port(settings)
        let device = AssistPaths.resolve(dataDir: options.dataDir, shareDir: options.shareDir).data
        let browser = try command(settings)
        guard let cage = ViewAttachment.find("cage") else {
            throw CLIFailure(
                message: "cage is not installed: install it with 'sudo apt install cage'; the view needs it.",
                exitCode: 78)
        }
        let deadline = Date(timeIntervalSinceNow: Double(max(1, waitSeconds)))
        var token: String?
        while Date() < deadline {
            if let kept = try? String(contentsOf: device.appendingPathComponent("view-token"), encoding: .utf8),
                ViewServer.isToken(kept), !ViewServer.portIsFree(port)
            {
                token = kept
                break
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
        guard let token else {
            throw CLIFailure(
                message:
                    "The kiosk's page does not answer on port \(port) after \(waitSeconds) seconds: is the kiosk running with view = true in [kiosk]? assist kiosk check says more."
            )
        }
        let url = "http://127.0.0.1:\(port)/?token=\(token)"
        let arguments = [cage, "-s", "--"] + browser.map { $0.replacingOccurrences(of: "{url}", with: url) }
        let pointers = arguments.map { strdup($0) } + [nil]
        execv(cage, pointers)
        throw CLIFailure(message: "cage could not be started: \(String(cString: strerror(errno))).")
    }

    /// The browser's command, `{url}` standing for the page: `view.browser` (the address added at its end), else
    /// Debian's chromium in kiosk mode.
    static func command(_ settings: SettingsStore) throws -> [String] {
        if case .string(let configured) = settings.value("view.browser"), !configured.isEmpty {
            return configured.split(separator: " ").map(String.init) + ["{url}"]
        }
        guard let chromium = ViewAttachment.find("chromium") else {
            throw CLIFailure(
                message: "chromium is not installed: install it with 'sudo apt install chromium'; the view needs it.",
                exitCode: 78)
        }
        return [
            chromium, "--kiosk", "--no-first-run", "--noerrdialogs", "--disable-translate",
            "--disable-features=TranslateUI", "--app={url}",
        ]
    }
}
