import Digest
import Foundation
import HostTesting
import Testing

/// A home of its own with a user plugin folder, a system plugin folder and packages made by the real
/// `assist plugins pack` (or, for hostile ones, by Tests/Fixtures/packages/make_package.py).
final class PackageFixture {
    let home: TemporaryDirectory
    let id: String
    var data: URL { home.path("data") }
    var userFolder: URL { home.path(".local/lib/assist/plugins") }
    var systemFolder: URL { home.path("system-plugins") }
    var installed: URL { userFolder.appendingPathComponent(id) }

    init(id: String = "org.example.counter") throws {
        home = try TemporaryDirectory("assist-packages")
        self.id = id
        try FileManager.default.createDirectory(at: home.path("packages"), withIntermediateDirectories: true)
    }

    var environment: [String: String] {
        [
            "HOME": home.url.path, "ASSIST_SYSTEM_PLUGIN_DIR": systemFolder.path,
            "XDG_CONFIG_HOME": home.path("config").path, "ASSIST_SYSCONFDIR": home.path("etc").path,
        ]
    }

    func assist(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist, arguments + ["--no-speech", "--data-dir", data.path], input: input ?? "",
            environment: environment)
    }

    /// The test plugin as `id` at `version`, built into a folder of its own.
    func plugin(
        version: String, defines: [String] = [], id: String? = nil, extra: [String: Any] = [:], share: Bool = true
    ) throws -> URL {
        let id = id ?? self.id
        var manifest = CPluginBuilder.manifest(id: id, extra: extra)
        manifest["version"] = version
        manifest["name"] = "Counter"
        let folder = try CPluginBuilder(root: home.path("src")).build(
            folder: "\(id)-\(version)-\(defines.joined())",
            defines: [#"PLUGIN_ID="\#(id)""#, #"PLUGIN_VERSION="\#(version)""#] + defines, manifest: manifest)
        if share {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("share/sounds"), withIntermediateDirectories: true)
            try Data("tick".utf8).write(to: folder.appendingPathComponent("share/sounds/tick.txt"))
        }
        return folder
    }

    /// `assist plugins pack` of `folder`; the package's URL.
    func pack(_ folder: URL) throws -> URL {
        let result = try assist(["plugins", "pack", folder.path, "--output", home.path("packages").path])
        #expect(result.status == 0, "\(result.standardError)")
        let line = try #require(result.lines.first)
        let path = try #require(line.split(separator: " ").first { $0.hasSuffix(".assist-plugin:") })
        return URL(fileURLWithPath: String(path.dropLast()))
    }

    /// A package written entry by entry (see make_package.py).
    func hostile(_ name: String, _ entries: [[String: Any]], options: [String: Any] = [:]) throws -> URL {
        let spec = home.path("packages/\(name).json")
        try JSONSerialization.data(withJSONObject: ["entries": entries, "options": options]).write(to: spec)
        let output = home.path("packages/\(name).assist-plugin")
        let script = BuildProducts.packageRoot.appendingPathComponent("Tests/Fixtures/packages/make_package.py")
        let made = try ProcessRunner.run("/usr/bin/python3", [script.path, output.path, spec.path])
        #expect(made.status == 0, "\(made.standardError)")
        return output
    }

    /// The entries of a good package of `folder`: its manifest, library and a sound.
    func entries(of folder: URL) -> [[String: Any]] {
        [
            ["name": "manifest.json", "source": folder.appendingPathComponent("manifest.json").path],
            ["name": "libtest.so", "source": folder.appendingPathComponent("libtest.so").path],
        ]
    }

    /// Everything in the user and system plugin folders and beside them, to prove nothing else was written.
    func snapshot() -> [String] {
        var names: [String] = []
        for root in [userFolder, systemFolder, home.url] {
            let walker = FileManager.default.enumerator(atPath: root.path)
            while let name = walker?.nextObject() as? String {
                if !name.hasPrefix("data") && !name.hasPrefix("packages") && !name.hasPrefix("src")
                    && !name.hasPrefix("config")
                {
                    names.append("\(root.lastPathComponent)/\(name)")
                }
            }
        }
        return names.sorted()
    }

    /// The installed plugin's line in `plugins list`.
    func listed() throws -> String? {
        try assist(["plugins", "list"]).lines.first { $0.hasPrefix(id + " ") }
    }

    /// The installed plugin runs through the real loader: it asks its question and says the answer.
    func runs() throws -> Bool {
        try assist(["run", id], input: "1\n").lines.contains("You chose number 1.")
    }
}

@Suite("Plugin packages: pack, install, update, remove")
struct PluginPackageTests {
    @Test func installUpdateDowngradeAndRemoveKeepTheDataAndAskFirst() throws {
        let fixture = try PackageFixture()
        let first = try fixture.pack(
            try fixture.plugin(
                version: "1.0.0", extra: ["author": "Example Ltd", "devices": ["camera", "microphone"]]))
        #expect(first.lastPathComponent == "org.example.counter-1.0.0.assist-plugin")

        let notYet = try fixture.assist(["plugins", "update", first.path], input: "y\n")
        #expect(notYet.status == 1)
        #expect(
            notYet.standardError
                == "Counter is not installed for you, so there is nothing to update; install it with assist plugins install \(first.path).\n"
        )
        // No: nothing is written.
        let declined = try fixture.assist(["plugins", "install", first.path], input: "n\n")
        #expect(declined.status == 1)
        #expect(
            declined.lines.first
                == "Install Counter 1.0.0 for you? It is unsigned, so nobody vouches for who made it. It says it is made by Example Ltd; nobody has vouched for that. It asks for the camera and the microphone. Y or N."
        )
        #expect(declined.standardError.contains("Nothing was installed."))
        #expect(!FileManager.default.fileExists(atPath: fixture.installed.path))

        let installed = try fixture.assist(["plugins", "install", first.path], input: "y\n")
        #expect(installed.status == 0, "\(installed.standardError)")
        #expect(installed.lines.contains("Counter 1.0.0 is installed for you. To start it, run: assist run counter."))
        #expect(installed.lines.contains { $0.hasPrefix("Installed in ") })
        #expect(try fixture.runs())
        let library = fixture.installed.appendingPathComponent("libtest.so")
        let hash = try #require(SHA256Digest.hex(ofFileAt: library))
        #expect(
            try fixture.listed() == "org.example.counter 1.0.0, Counter, available; user, unsigned, SHA-256 \(hash)",
            "the list says where it came from and the hash a kiosk allowlist needs")
        #expect(
            FileManager.default.fileExists(
                atPath: fixture.installed.appendingPathComponent("share/sounds/tick.txt").path))
        let mode = try FileManager.default.attributesOfItem(atPath: library.path)[.posixPermissions] as? Int
        #expect(mode == 0o755)

        // What the plugin saved survives an update and a downgrade.
        let saved = fixture.data.appendingPathComponent("plugins/\(fixture.id)/counts.db")
        try FileManager.default.createDirectory(
            at: saved.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("42".utf8).write(to: saved)
        let newer = try fixture.pack(
            try fixture.plugin(
                version: "1.1.0", extra: ["author": "Example Ltd", "settings_namespaces": ["counter", "tally"]]))
        let elsewhere = try fixture.assist(["plugins", "update", newer.path, "--system"], input: "y\n")
        #expect(elsewhere.status == 1 && elsewhere.standardError.contains("is already installed (user)"))
        let updated = try fixture.assist(["plugins", "update", newer.path], input: "y\n")
        #expect(updated.status == 0, "\(updated.standardError)")
        #expect(
            updated.lines.first
                == "Update Counter from 1.0.0 to 1.1.0? It is unsigned, so nobody vouches for who made it. It says it is made by Example Ltd; nobody has vouched for that. It asks for no camera, microphone or network. It keeps settings under “counter” and “tally”. Its data is kept. Y or N."
        )
        #expect(updated.lines.contains("Counter is now version 1.1.0 (it was 1.0.0); its data is kept."))
        #expect(try fixture.listed()?.hasPrefix("org.example.counter 1.1.0, Counter, available; user") == true)
        #expect(FileManager.default.fileExists(atPath: saved.path))
        #expect(try fixture.runs())

        // An older version over a newer one is refused, whatever the answer, unless --allow-downgrade.
        let refused = try fixture.assist(["plugins", "install", first.path, "--yes"])
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                "Counter 1.1.0 is installed, and 1.0.0 is older: an older version may not read what the newer one saved"
            ) && refused.standardError.contains("run assist plugins install --allow-downgrade \(first.path)"),
            "\(refused)")
        #expect(try fixture.listed()?.hasPrefix("org.example.counter 1.1.0,") == true)
        let back = try fixture.assist(["plugins", "install", first.path, "--allow-downgrade"], input: "n\n")
        #expect(
            back.lines.first
                == "Counter 1.1.0 is installed. Go back to the older 1.0.0? Its data is kept, but the older version may not read what the newer one saved. Y or N."
        )
        #expect(back.status == 1)
        #expect(try fixture.listed()?.hasPrefix("org.example.counter 1.1.0,") == true, "no is no")
        let yes = try fixture.assist(["plugins", "install", first.path, "--allow-downgrade", "--yes"])
        #expect(yes.status == 0 && yes.lines.contains("Yes (--yes)."))
        #expect(try fixture.listed()?.hasPrefix("org.example.counter 1.0.0,") == true)
        #expect(fixture.snapshot().allSatisfy { !$0.contains("/.install-") && !$0.contains("/.old-") })

        // Remove, keeping the data; then again without.
        let kept = try fixture.assist(["plugins", "remove", "counter", "--keep-data"], input: "y\n")
        #expect(kept.lines.first == "Remove Counter 1.0.0? Y or N.")
        #expect(
            kept.lines.contains(
                "Counter 1.0.0 is removed; what it saved is kept in \(saved.deletingLastPathComponent().path)."))
        #expect(!FileManager.default.fileExists(atPath: fixture.installed.path))
        #expect(FileManager.default.fileExists(atPath: saved.path))
        #expect(try fixture.listed() == nil)
        #expect(try fixture.assist(["plugins", "install", newer.path, "-y"]).status == 0)
        let removed = try fixture.assist(["plugins", "remove", fixture.id], input: "y\n")
        #expect(removed.lines.first == "Remove Counter 1.1.0 and everything it saved? Y or N.")
        #expect(removed.status == 0 && !FileManager.default.fileExists(atPath: saved.path))

        let own = try fixture.assist(["plugins", "remove", "assist.clock"], input: "y\n")
        #expect(own.status == 1 && own.standardError.contains("is part of Assist and cannot be removed"))
        let unknown = try fixture.assist(["plugins", "remove", "org.example.nothing"], input: "y\n")
        #expect(unknown.standardError.contains("No plugin called org.example.nothing is installed"))
    }

    @Test func theSystemFolderServesEveryUserAndTheSameIDCannotBeInstalledTwice() throws {
        let fixture = try PackageFixture()
        let package = try fixture.pack(try fixture.plugin(version: "1.0.0"))
        try #require(geteuid() == 0, "the tests run as root, as CI does")
        let system = try fixture.assist(["plugins", "install", package.path, "--system", "--yes"])
        #expect(system.status == 0, "\(system.standardError)")
        #expect(
            system.lines.contains("Counter 1.0.0 is installed for every user. To start it, run: assist run counter."))
        #expect(try fixture.listed()?.contains("available; system, unsigned, SHA-256 ") == true)
        let again = try fixture.assist(["plugins", "install", package.path], input: "y\n")
        #expect(again.status == 1)
        #expect(
            again.standardError.contains(
                "A plugin with the id org.example.counter is already installed (system) at \(fixture.systemFolder.appendingPathComponent(fixture.id).path); remove that one first."
            ), "\(again.standardError)")
        #expect(!FileManager.default.fileExists(atPath: fixture.installed.path))
        let removed = try fixture.assist(["plugins", "remove", fixture.id, "--system", "--yes"])
        #expect(removed.status == 0, "\(removed.standardError)")
    }

    /// Every package a careless or hostile third party could make: refused with one sentence, nothing
    /// written beside the plugins, and the version installed before still runs through the real loader.
    @Test func hostileAndBrokenPackagesAreRefusedAndTheInstalledVersionStillWorks() throws {
        let fixture = try PackageFixture()
        let good = try fixture.plugin(version: "1.0.0")
        #expect(try fixture.assist(["plugins", "install", try fixture.pack(good).path, "--yes"]).status == 0)
        let before = fixture.snapshot()
        let hashBefore = SHA256Digest.hex(ofFileAt: fixture.installed.appendingPathComponent("libtest.so"))
        let base = fixture.entries(of: try fixture.plugin(version: "1.1.0", share: false))

        var cases: [(String, URL, String)] = [
            (
                "a path out of the folder",
                try fixture.hostile("escape", base + [["name": "../../escaped.so", "data": "x"]]),
                "would be written outside the plugin's folder"
            ),
            (
                "an absolute path",
                try fixture.hostile("absolute", base + [["name": "/tmp/assist-absolute", "data": "x"]]),
                "would be written outside the plugin's folder"
            ),
            (
                "a control character in a name",
                try fixture.hostile("control", base + [["name": "share/bell\u{07}.wav", "data": "x"]]),
                "its entry “share/bell\\u0007.wav” has a control character in its name; rename the file"
            ),
            (
                "a backslash in a name",
                try fixture.hostile("backslash", base + [["name": "share\\sounds\\tap.wav", "data": "x"]]),
                "has a backslash in its name, which is not a folder separator here"
            ),
            (
                "thirteen folders deep",
                try fixture.hostile(
                    "deep", base + [["name": (1...12).map { "d\($0)" }.joined(separator: "/") + "/f", "data": "x"]]),
                "is 13 levels deep, and a package may go 12 deep at most"
            ),
            (
                "a symbolic link to /etc/passwd",
                try fixture.hostile(
                    "symlink", base + [["name": "share/passwd", "type": "symlink", "target": "/etc/passwd"]]),
                "“share/passwd” is a link"
            ),
            (
                "a hard link",
                try fixture.hostile(
                    "hardlink", base + [["name": "share/m", "type": "hardlink", "target": "manifest.json"]]),
                "“share/m” is a link"
            ),
            (
                "a device file", try fixture.hostile("device", base + [["name": "share/null", "type": "chardev"]]),
                "is a device or another special file"
            ),
            (
                "a compression bomb",
                try fixture.hostile(
                    "bomb", base + [["name": "share/zeros", "zeros": 600_000_000]], options: ["level": 9]),
                "it unpacks to more than 512 MB"
            ),
            (
                "too many files",
                try fixture.hostile("many", base + (0..<2_100).map { ["name": "share/f\($0)", "data": ""] }),
                "it holds more than 2000 files and folders"
            ),
            (
                "a file listed with another hash",
                try fixture.hostile(
                    "sums", base, options: ["sums_text": String(repeating: "0", count: 64) + "  libtest.so\n"]),
                "does not match its SHA-256 in SHA256SUMS"
            ),
            ("no SHA256SUMS", try fixture.hostile("nosums", base, options: ["sums": false]), "has no SHA256SUMS"),
            (
                "a file SHA256SUMS leaves out",
                try fixture.hostile("unlisted", base + [["name": "share/extra", "data": "x", "unlisted": true]]),
                "“share/extra” has no SHA-256 in SHA256SUMS"
            ),
        ]
        // Broken, not hostile: an HTML page saved instead of the package, and a download cut in half.
        let html = fixture.home.path("packages/page.assist-plugin")
        try Data("<!DOCTYPE html><html><body>Not found</body></html>\n".utf8).write(to: html)
        cases.append(("an HTML page", html, "The package cannot be read"))
        let whole = try Data(contentsOf: try fixture.pack(try fixture.plugin(version: "1.2.0")))
        let truncated = fixture.home.path("packages/truncated.assist-plugin")
        try whole.prefix(whole.count / 2).write(to: truncated)
        cases.append(("a truncated download", truncated, "is damaged or incomplete"))
        // What the loader would refuse, found before anything is unpacked.
        var abi2 = CPluginBuilder.manifest(id: fixture.id, abi: "2.0")
        abi2["version"] = "2.0.0"
        let abiFolder = try CPluginBuilder(root: fixture.home.path("src")).build(
            folder: "abi2", defines: [#"PLUGIN_ID="\#(fixture.id)""#, "ABI_MAJOR=2"], manifest: abi2)
        cases.append(("ABI 2.0", try fixture.pack(abiFolder), "plugin built for ABI 2.0, host supports 1.0"))
        let arm = try fixture.plugin(version: "1.3.0", share: false)
        try Self.patchMachine(arm.appendingPathComponent("libtest.so"), to: 183)
        cases.append(("another architecture", try fixture.pack(arm), "is built for aarch64, this host is x86_64"))
        let own = try fixture.plugin(version: "1.0.0", id: "assist.counter", share: false)
        cases.append(("an assist. id", try fixture.pack(own), "ids that begin with “assist.” belong to Assist's own"))
        let crashing = try fixture.plugin(version: "1.4.0", defines: ["INIT_CRASHES"], share: false)
        cases.append(("a library that crashes in init", try fixture.pack(crashing), "it crashed when it was loaded"))
        // Issue 73: one that loads but crashes the first time it is started.
        let startCrashes = try fixture.plugin(version: "1.5.0", defines: ["START_CRASHES"], share: false)
        cases.append(
            (
                "a plugin that crashes in start", try fixture.pack(startCrashes),
                "was not installed: it fails when it runs, at start with no arguments"
            ))

        for (what, package, expected) in cases {
            let result = try fixture.assist(["plugins", "install", package.path, "--yes"])
            #expect(result.status == 1, "\(what): \(result.standardOutput)")
            let errors = result.standardError.split(separator: "\n")
            #expect(errors.count == 1 && errors[0].contains(expected), "\(what): \(result.standardError)")
            #expect(fixture.snapshot() == before, "\(what) wrote something")
            #expect(
                !FileManager.default.fileExists(
                    atPath: fixture.home.url.deletingLastPathComponent().appendingPathComponent("escaped.so").path))
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/assist-absolute"))
        #expect(SHA256Digest.hex(ofFileAt: fixture.installed.appendingPathComponent("libtest.so")) == hashBefore)
        #expect(try fixture.listed()?.hasPrefix("org.example.counter 1.0.0, Counter, available; user") == true)
        #expect(try fixture.runs(), "the version installed before still runs")
    }

    @Test func packRefusesWhatItCannotShip() throws {
        let fixture = try PackageFixture()
        let folder = try fixture.plugin(version: "1.0.0")
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("share/passwd"), withDestinationURL: URL(fileURLWithPath: "/etc/passwd"))
        let linked = try fixture.assist(["plugins", "pack", folder.path])
        #expect(
            linked.status == 1 && linked.standardError.contains("share/passwd is a link"), "\(linked.standardError)")
        let empty = fixture.home.path("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try fixture.assist(["plugins", "pack", empty.path])
        #expect(none.status == 1 && none.standardError.contains("No readable manifest"), "\(none.standardError)")
    }

    /// Writes `machine` into an ELF file's e_machine field (a library for another architecture).
    static func patchMachine(_ url: URL, to machine: UInt16) throws {
        var bytes = try Data(contentsOf: url)
        bytes[18] = UInt8(machine & 0xFF)
        bytes[19] = UInt8(machine >> 8)
        try bytes.write(to: url)
    }
}
