import AssistCore
import Foundation

/// The `manifest.json` beside a plugin library, read before any `dlopen`.
package struct PluginManifest: Decodable, Sendable, Equatable {
    /// A launch keyword.
    package struct Keyword: Decodable, Sendable, Equatable {
        package var phrase: String
        package var scope: String?
        package var lang: String?
        /// The start arguments a launch keyword gives ("find text" → `--text`); words said or typed after the
        /// phrase follow them as one more argument.
        package var arguments: [String]?
        /// What may follow the phrase: `choice` (one of a closed list the plugin sets with
        /// `assist_input_service.set_choices`) or `text` (open words: dictation, confirmed before acting).
        package var takes: String?

        package init(
            phrase: String, scope: String? = nil, lang: String? = nil, arguments: [String]? = nil, takes: String? = nil
        ) {
            self.phrase = phrase
            self.scope = scope
            self.lang = lang
            self.arguments = arguments
            self.takes = takes
        }
    }

    /// Files this plugin offers other plugins to read (issue 69): what it writes in `<data>/offers/<name>/`,
    /// and its media and cache folders when `folders` names them, readable by the plugins `to` names when they
    /// declare the offer in `reads`. Nothing else of one plugin's folders is another's.
    package struct Offer: Decodable, Sendable, Equatable {
        package var name: String
        /// The ids of the plugins it is offered to.
        package var to: [String]
        /// Which of the plugin's own folders come with it: "media", "cache".
        package var folders: [String]?

        package init(name: String, to: [String], folders: [String]? = nil) {
            self.name = name
            self.to = to
            self.folders = folders
        }
    }

    /// When Assist's own feature need not be asked first (docs/security.md): the starts that use none of its
    /// devices or servers, and the settings it cannot work without (unset, it only says what is missing).
    package struct FirstUse: Decodable, Sendable, Equatable {
        /// Start arguments that use none of its devices or servers (find-object's `--video`, `things`).
        package var notFor: [String]?
        /// Settings of its own it cannot work without: while one is unset, nothing is asked at its start.
        package var needsSettings: [String]?
        /// Settings of its own without which it sends nothing (barcode's `barcode.lookup-url`): while all are
        /// unset, the network is not asked about, only its devices.
        package var networkNeedsSettings: [String]?

        enum CodingKeys: String, CodingKey {
            case notFor = "not_for"
            case needsSettings = "needs_settings"
            case networkNeedsSettings = "network_needs_settings"
        }
    }

    /// Required and optional services, as versioned ids.
    package struct Services: Decodable, Sendable, Equatable {
        package var required: [String]?
        package var optional: [String]?
    }

    package var id: String
    package var name: String
    /// The name in other languages, by language code ("ru": "Найти предмет"); `name` where one is missing.
    package var names: [String: String]?
    package var version: String
    package var library: String
    package var abi: String
    package var minHost: String?
    package var lastTestedHost: String?
    package var description: String?
    package var services: Services?
    package var devices: [String]?
    package var storageQuotaMb: Int?
    package var keywords: [Keyword]?
    package var mode: String?
    package var languages: [String]?
    package var swiftToolchain: String?
    package var license: String?
    /// Who made it, as the install question names them ("Example Ltd").
    package var author: String?
    package var sha256: String?
    package var settingsNamespaces: [String]?
    /// Arguments the shell starts this foreground feature with once, when the shell starts (the survey's
    /// reminder: `["remind"]`). The feature must finish at once.
    package var atShellStart: [String]?
    /// Arguments that make this feature send what it still has to send and then finish, without anyone to
    /// ask: a per-person kiosk runs it in a departed person's data folder (collect-videos: `["sync"]`).
    package var sendWaiting: [String]?
    /// "process" asks to run in a helper process of its own even when Assist would run it in process
    /// (docs/plugin-isolation.md); third-party plugins always do, unless the admin says otherwise.
    package var isolation: String?
    /// The servers it sends to through the outbox ("data.example.org", "*.example.org", or "*" for any server
    /// the user sets up); absent or empty: no network (docs/security.md).
    package var network: [String]?
    /// Settings its users change in the shell's spoken settings (docs/plugin-abi.md).
    package var userSettings: [UserSettingDeclaration]?
    /// The host's shared commands this feature does nothing with (`next`, `previous`, `faster`, `slower`): help
    /// does not list them in its focus, and their key says so instead of doing nothing (find-object's help
    /// listed n, [ and ], which did nothing).
    package var unusedCommands: [String]?
    /// When the first-use question is not asked (`FirstUse`).
    package var firstUse: FirstUse?
    /// What it offers other plugins to read (`Offer`).
    package var offers: [Offer]?
    /// The offers of other plugins it reads, as "<id>/<offer>" ("assist.collect-videos/training-clips"):
    /// the host shows each one granted in `<data>/offered/<id>/` (docs/plugin-abi.md).
    package var reads: [String]?

    /// The shared commands a feature may say it does not use.
    package static let optionalCommands = ["next", "previous", "faster", "slower"]

    enum CodingKeys: String, CodingKey {
        case id, name, names, version, library, abi, description, services, devices, keywords, mode, languages
        case license
        case sha256, author, isolation, network, offers, reads
        case minHost = "min_host"
        case lastTestedHost = "last_tested_host"
        case storageQuotaMb = "storage_quota_mb"
        case swiftToolchain = "swift_toolchain"
        case settingsNamespaces = "settings_namespaces"
        case atShellStart = "at_shell_start"
        case sendWaiting = "send_waiting"
        case userSettings = "user_settings"
        case unusedCommands = "unused_commands"
        case firstUse = "first_use"
    }

    /// The name in `language` where the manifest gives one (`names`), else its own.
    package func name(in language: String) -> String {
        names?[language].flatMap { $0.isEmpty ? nil : $0 } ?? name
    }

    /// True for background plugins (sensors), false for foreground features.
    package var isBackground: Bool { mode == "background" }

    /// The short name used for share data and settings: "read-text" for "assist.read-text".
    package var shortName: String {
        id.split(separator: ".").last.map(String.init) ?? id
    }

    /// True when `key` is a setting inside one of `namespaces` ("barcode.lookup-url" in "barcode"; not
    /// "barcode" itself, nor "barcodes.x").
    static func isSetting(_ key: String, in namespaces: [String]) -> Bool {
        namespaces.contains { key.hasPrefix($0 + ".") && key.count > $0.count + 1 }
    }

    /// The settings namespaces this plugin may write: `settings_namespaces`, else its short name, or, where
    /// that is one of the host's (`org.example.camera`), its whole id with dashes (`org-example-camera`).
    package var writableNamespaces: [String] {
        if let settingsNamespaces { return settingsNamespaces }
        if PublicSettings.reservedNamespaces.contains(shortName.lowercased()) {
            return [id.replacingOccurrences(of: ".", with: "-")]
        }
        return [shortName]
    }

    /// Required services, empty when none.
    package var requiredServices: [String] { services?.required ?? [] }

    /// Reads and checks a manifest file; the error is one line naming the problem.
    package static func load(from url: URL) throws(PluginRefusal) -> PluginManifest {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .manifestMissing(url.path)
        }
        return try decode(data, path: url.path)
    }

    /// Reads and checks a manifest's bytes (from a package, before anything is unpacked); `path` names it in
    /// the error.
    package static func decode(_ data: Data, path: String) throws(PluginRefusal) -> PluginManifest {
        let manifest: PluginManifest
        do {
            manifest = try JSONDecoder().decode(PluginManifest.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .manifestInvalid(path, "the field \"\(field(context.codingPath + [key]))\" is missing")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .manifestInvalid(path, "the field \"\(field(context.codingPath))\" has the wrong type")
        } catch {
            throw .manifestInvalid(path, "it is not valid JSON")
        }
        if let key = JSONDuplicateKeys.first(in: data) {
            throw .manifestInvalid(
                path, "it gives the key \"\(key)\" twice, which JSON readers take differently; give each key once")
        }
        try manifest.validate(path: path)
        return manifest.cleaned()
    }

    /// A decoding path as a manifest's author writes it: `keywords[0].phrase` (Foundation says "Index 0").
    static func field(_ path: [any CodingKey]) -> String {
        path.reduce(into: "") { text, key in
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
    }

    /// The longest name, author or keyword kept whole, and the longest description, in characters.
    static let nameLimit = 80
    static let descriptionLimit = 500

    /// The manifest with its free text made safe to print and speak (issue 38): a name, author, licence,
    /// description or keyword from a third party loses control characters, direction overrides and line
    /// breaks, and is shortened with its length said. Every command that shows a manifest shows these.
    func cleaned() -> PluginManifest {
        var manifest = self
        manifest.name = PlainText.value(name, limit: Self.nameLimit)
        manifest.names = names?.mapValues { PlainText.value($0, limit: Self.nameLimit) }
        manifest.author = author.map { PlainText.value($0, limit: Self.nameLimit) }
        manifest.license = license.map { PlainText.value($0, limit: Self.nameLimit) }
        manifest.description = description.map { PlainText.value($0, limit: Self.descriptionLimit) }
        manifest.keywords = keywords?.map { keyword in
            var keyword = keyword
            keyword.phrase = PlainText.value(keyword.phrase, limit: Self.nameLimit)
            return keyword
        }
        manifest.userSettings = userSettings?.map { setting in
            var setting = setting
            let clean = { (text: String) in PlainText.value(text, limit: Self.nameLimit) }
            setting.label = clean(setting.label)
            setting.labels = setting.labels?.mapValues(clean)
            setting.unit = setting.unit.map(clean)
            setting.choices = setting.choices?.map {
                .init(value: $0.value, label: clean($0.label), labels: $0.labels?.mapValues(clean))
            }
            return setting
        }
        return manifest
    }

    /// Checks the fields' forms: reverse-DNS id, semver versions, a plain library name, a known mode.
    package func validate(path: String) throws(PluginRefusal) {
        let idParts = id.split(separator: ".", omittingEmptySubsequences: false)
        let idCharacters = CharacterSet.lowercaseLetters.union(.decimalDigits).union(CharacterSet(charactersIn: "-_"))
        let idOK =
            idParts.count >= 2
            && idParts.allSatisfy {
                !$0.isEmpty && $0.unicodeScalars.allSatisfy { idCharacters.contains($0) && $0.isASCII }
            }
        guard idOK else {
            throw .manifestInvalid(path, "the id \"\(id)\" is not reverse-DNS, like org.example.bus-stop")
        }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .manifestInvalid(path, "the name is empty")
        }
        guard SemanticVersion(version) != nil else {
            throw .manifestInvalid(path, "the version \"\(version)\" is not like 1.2.0")
        }
        guard !library.isEmpty, !library.contains("/"), library.hasSuffix(".so") else {
            throw .manifestInvalid(path, "the library \"\(library)\" must be a file name ending in .so")
        }
        guard SemanticVersion(abi) != nil else {
            throw .manifestInvalid(path, "the abi \"\(abi)\" is not like 1.0")
        }
        for (field, value) in [("min_host", minHost), ("last_tested_host", lastTestedHost)] {
            if let value, SemanticVersion(value) == nil {
                throw .manifestInvalid(path, "\(field) \"\(value)\" is not like 1.0.0")
            }
        }
        if let mode, mode != "foreground", mode != "background" {
            throw .manifestInvalid(path, "mode must be foreground or background, not \"\(mode)\"")
        }
        if let isolation, isolation != "process", isolation != "in-process" {
            throw .manifestInvalid(path, "isolation must be process or in-process, not \"\(isolation)\"")
        }
        try validatePermissions(path: path)
        for namespace in writableNamespaces where PublicSettings.reservedNamespaces.contains(namespace.lowercased()) {
            let reserved = PublicSettings.reservedNamespaces.sorted().joined(separator: ", ")
            throw .manifestInvalid(
                path,
                "its settings namespace \"\(namespace)\" is Assist's own (reserved: \(reserved)); "
                    + "give settings_namespaces a name of the plugin's own")
        }
        for (index, setting) in (userSettings ?? []).enumerated() {
            if let problem = setting.problem(namespaces: writableNamespaces) {
                throw .manifestInvalid(path, "user setting \(index + 1): \(problem)")
            }
        }
        for command in unusedCommands ?? [] where !Self.optionalCommands.contains(command) {
            throw .manifestInvalid(
                path,
                "unused_commands may name \(Self.optionalCommands.joined(separator: ", ")), not \"\(PlainText.value(command, limit: 30))\""
            )
        }
        try validateOffers(path: path)
        let named = [
            ("needs_settings", firstUse?.needsSettings), ("network_needs_settings", firstUse?.networkNeedsSettings),
        ]
        for (field, keys) in named {
            for key in keys ?? []
            where !Self.isSetting(key, in: writableNamespaces) {
                throw .manifestInvalid(
                    path,
                    "first_use.\(field) names \"\(PlainText.value(key, limit: 60))\", which is not one of its own settings"
                )
            }
        }
        for keyword in keywords ?? []
        where keyword.scope != nil && keyword.scope != "global" && keyword.scope != "focused" {
            throw .manifestInvalid(path, "keyword scope must be global or focused, not \"\(keyword.scope ?? "")\"")
        }
        for keyword in keywords ?? [] where keyword.takes != nil && keyword.takes != "choice" && keyword.takes != "text"
        {
            throw .manifestInvalid(
                path, "keyword \"\(keyword.phrase)\" takes must be choice or text, not \"\(keyword.takes ?? "")\"")
        }
    }
}
