import Foundation
import PluginKit

/// The admin's settings (`[collect-videos]`): the server's base URL (spec §3.1, e.g.
/// `https://orbit.example.org/phasetwo/`), the app credential (a full `Basic …` string, a secret: never
/// spoken, printed or logged) and the contact line for error messages.
public struct OrbitConfiguration: Sendable {
    public var serverURL: String?
    /// `server-url` as the admin wrote it, for the sentence when it is no web address.
    private var serverURLAsWritten: String?
    public var appCredential: String?
    public var contact: String?
    /// Clips end after this many seconds at most (an admin's or a test's cap under the 20/30 s of the spec).
    public var recordSeconds: Double?
    /// Minutes between status readings while the menus are open (`poll-minutes`, spec §3.26; default 30).
    public var pollMinutes: Double = 30
    /// A clip stopped by hand before this many seconds is offered to be kept, filmed again or discarded.
    public var minSeconds: Double = 5
    /// The sentences below, in the session's language.
    private let phrases: PhraseTable

    public init(phrases: PhraseTable, _ lookup: (String) -> String?) {
        self.phrases = phrases
        func text(_ key: String) -> String? {
            lookup(key).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        serverURLAsWritten = text("server-url")
        serverURL = serverURLAsWritten.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        appCredential = text("app-credential")
        contact = text("contact")
        recordSeconds = text("record-seconds").flatMap(Double.init).map { max(1, $0) }
        if let shortest = text("min-seconds").flatMap(Double.init), shortest.isFinite {
            minSeconds = min(max(shortest, 0), 30)
        }
        if let minutes = text("poll-minutes").flatMap(Double.init), minutes >= 1 { pollMinutes = min(minutes, 24 * 60) }
    }

    /// What the admin must set, as one sentence; nil when set up.
    public var problem: String? {
        var missing: [String] = []
        if serverURL == nil { missing.append("collect-videos.server-url") }
        if appCredential == nil { missing.append("collect-videos.app-credential") }
        if contact == nil { missing.append("collect-videos.contact") }
        if missing.isEmpty, let serverURL, !Self.isWebAddress(serverURL) {
            let shown =
                serverURL.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
                ? "\"\(serverURL.dropLast().prefix(80))\"" : phrases.text("control-characters")
            return phrases.text("not-set-up-url", ["value": shown])
        }
        guard !missing.isEmpty else { return nil }
        return phrases.text(
            missing.count == 1 ? "not-set-up-missing-one" : "not-set-up-missing",
            ["settings": missing.joined(separator: ", ")])
    }

    /// An http or https address with a server name (and no spaces): what the ORBIT server's base can be.
    static func isWebAddress(_ text: String) -> Bool {
        guard !text.contains(where: \.isWhitespace), let parts = URLComponents(string: text),
            let scheme = parts.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = parts.host, !host.isEmpty
        else { return false }
        return true
    }

    /// What the person using the feature hears when it is not set up: in words, no setting names (those are
    /// for the admin: `problem`, logged and in `status`); nil when set up.
    public var problemForUser: String? {
        problem == nil
            ? nil
            : phrases.text("not-set-up-user")
    }

    /// The contact line, for sentences about trouble.
    public var contactLine: String { contact.map { " " + phrases.text("contact", ["contact": $0]) } ?? "" }
}
