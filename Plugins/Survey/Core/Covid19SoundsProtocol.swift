import Foundation
import PluginKit

/// Where and how finished surveys are sent: the server and its credentials, from admin configuration.
public struct ServerConfiguration: Sendable, Equatable {
    public var baseURL: String
    public var clientID: String
    public var clientSecret: String
    public var preauthPassword: String
    public var preauthEmail: String

    /// The configuration, or the setting keys that are missing.
    public static func from(_ lookup: (String) -> String?) -> Result<ServerConfiguration, MissingSettings> {
        let keys = ["server-url", "client-id", "client-secret", "preauth-password", "preauth-email"]
        let values = keys.map { lookup($0)?.trimmingCharacters(in: .whitespaces) ?? "" }
        let missing = zip(keys, values).filter { $0.1.isEmpty }.map { "survey.\($0.0)" }
        guard missing.isEmpty else { return .failure(MissingSettings(keys: missing)) }
        var base = values[0]
        while base.hasSuffix("/") { base.removeLast() }
        return .success(
            ServerConfiguration(
                baseURL: base, clientID: values[1], clientSecret: values[2], preauthPassword: values[3],
                preauthEmail: values[4]))
    }
}

public struct MissingSettings: Error, Equatable, Sendable {
    public var keys: [String]
}

/// The COVID-19 Sounds server protocol (spec §5): create a user once, get an OAuth2 token, PUT one multipart
/// request. Builds the requests and reads the replies; sending is the host outbox's work.
public enum Covid19SoundsProtocol {
    /// 12 random characters of [A-Za-z0-9] for `create_app_user_preauth`.
    public static func randomUsername() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] })
    }

    public static func createUser(_ server: ServerConfiguration, username: String, tag: String) -> OutboxRequest {
        var request = OutboxRequest(method: "POST", url: server.baseURL + "/api/create_app_user_preauth/")
        request.body = .form([
            ("username", username), ("password", server.preauthPassword), ("email", server.preauthEmail),
        ])
        request.maxAttempts = 1
        request.tag = tag
        return request
    }

    public static func passwordGrant(
        _ server: ServerConfiguration, username: String, password: String, tag: String
    ) -> OutboxRequest {
        tokenRequest(
            server,
            [
                .field("username", username), .field("password", password), .field("client_id", server.clientID),
                .field("client_secret", server.clientSecret), .field("grant_type", "password"),
            ], tag: tag)
    }

    public static func refreshGrant(_ server: ServerConfiguration, refreshToken: String, tag: String)
        -> OutboxRequest
    {
        tokenRequest(
            server,
            [
                .field("client_id", server.clientID), .field("client_secret", server.clientSecret),
                .field("grant_type", "refresh_token"), .field("refresh_token", refreshToken),
            ], tag: tag)
    }

    private static func tokenRequest(_ server: ServerConfiguration, _ parts: [OutboxRequest.Part], tag: String)
        -> OutboxRequest
    {
        var request = OutboxRequest(method: "POST", url: server.baseURL + "/auth/token/")
        request.body = .multipart(parts)
        request.maxAttempts = 1
        request.tag = tag
        return request
    }

    /// One document part for the upload.
    public struct Document: Sendable {
        public var name: String
        /// A path inside the plugin's media folder.
        public var path: String
    }

    /// One audio part: `audio_file_breathe.wav` and the like.
    public struct Audio: Sendable {
        public var filename: String
        public var path: String
        public var contentType: String
    }

    public static func upload(
        _ server: ServerConfiguration, accessToken: String, documents: [Document], audio: [Audio], tag: String
    ) -> OutboxRequest {
        var request = OutboxRequest(method: "PUT", url: server.baseURL + "/api/receive_file/")
        request.headers = [("Authorization", "Bearer \(accessToken)")]
        request.body = .multipart(
            documents.map { .file($0.name, path: $0.path, filename: $0.name, contentType: "application/json") }
                + audio.map { .file($0.filename, path: $0.path, filename: $0.filename, contentType: $0.contentType) })
        request.maxAttempts = 1
        request.tag = tag
        return request
    }

    /// `{"username","password"}` from `create_app_user_preauth`.
    public static func createdUser(_ body: Data) -> (username: String, password: String)? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let username = object["username"] as? String, let password = object["password"] as? String,
            !username.isEmpty, !password.isEmpty
        else { return nil }
        return (username, password)
    }

    /// A token reply; `expires_at` counts from `receivedAt` (the original counted from the survey's end).
    public static func token(_ body: Data, receivedAt: Double) -> SurveyStore.Token? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let access = object["access_token"] as? String, let refresh = object["refresh_token"] as? String,
            let expires = (object["expires_in"] as? NSNumber)?.doubleValue
        else { return nil }
        return SurveyStore.Token(
            accessToken: access, refreshToken: refresh, expiresAt: receivedAt + expires, forcePasswordGrant: false)
    }

    /// What the next request must be, given the account and token at `now` (spec §5.2): a token with more than
    /// 60 s left is reused, else refreshed, else a password grant is made.
    public enum Step: Equatable, Sendable {
        case createUser, passwordGrant, refresh, upload
    }

    public static func nextStep(account: SurveyStore.Account, token: SurveyStore.Token?, now: Double) -> Step {
        guard account.username != nil, account.password != nil else { return .createUser }
        guard let token, !token.forcePasswordGrant else { return .passwordGrant }
        if token.expiresAt - now > 60 { return .upload }
        return token.refreshToken.isEmpty ? .passwordGrant : .refresh
    }

    /// A part's JSON document, keys in a fixed order: `participant_id`, `datetime`, the fields in definition
    /// order, then `locale`, `device` and `type`. Every value is a string.
    public static func document(
        participant: String, completedAt: Double, fields: [(String, String)], locale: String, device: String,
        type: String
    ) -> Data {
        var pairs: [(String, String)] = [("participant_id", participant), ("datetime", datetime(completedAt))]
        pairs += fields
        pairs += [("locale", locale), ("device", device), ("type", type)]
        let body = pairs.map { "\(quoted($0.0)):\(quoted($0.1))" }.joined(separator: ",")
        return Data("{\(body)}".utf8)
    }

    /// Unix seconds with milliseconds, as a decimal string: "1700000000.123".
    public static func datetime(_ seconds: Double) -> String {
        String(format: "%.3f", seconds)
    }

    static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// "<model>,<OS>,<version>": the DMI product name (or PC), the os-release NAME and VERSION_ID, commas
    /// inside values turned into spaces.
    public static func device(root: String = "/") -> String {
        func read(_ path: String) -> String? {
            (try? String(contentsOfFile: root + path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let model = read("sys/class/dmi/id/product_name").flatMap(\.nilIfEmpty) ?? "PC"
        var release: [String: String] = [:]
        for line in (read("etc/os-release") ?? read("usr/lib/os-release") ?? "").split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            release[pair[0]] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
        return [model, release["NAME"] ?? "Linux", release["VERSION_ID"] ?? ""]
            .map { $0.replacingOccurrences(of: ",", with: " ") }.joined(separator: ",")
    }
}
