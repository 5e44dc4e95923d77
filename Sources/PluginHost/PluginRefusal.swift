import AssistCore

/// Why a plugin is not usable: the state it ends in and one line saying what is wrong and what to do.
package struct PluginRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The plugin state the refusal leads to.
    package var state: PluginState
    /// One line for people: what is wrong, and how to fix it when we know.
    package var message: String

    package var description: String { message }

    /// Turned off on this device (it crashed Assist, or safe mode); `reason` says how to turn it on again.
    package static func disabled(_ reason: String) -> Self {
        Self(state: .disabled, message: reason)
    }

    package static func manifestMissing(_ path: String) -> Self {
        Self(
            state: .failedInit,
            message: "no readable manifest at \(path); every plugin needs a manifest.json beside its library")
    }

    package static func manifestInvalid(_ path: String, _ problem: String) -> Self {
        // The problem quotes the manifest's own text: cleaned and shortened, as every third party's text is.
        Self(state: .failedInit, message: "the manifest \(path) is invalid: \(PlainText.value(problem, limit: 300))")
    }

    package static func libraryMissing(_ path: String) -> Self {
        Self(state: .failedInit, message: "the library \(path) does not exist; build or reinstall the plugin")
    }

    package static func notELF(_ path: String, _ problem: String) -> Self {
        Self(state: .failedInit, message: "\(path) is not a loadable plugin library: \(problem)")
    }

    package static func wrongArchitecture(_ path: String, plugin: String, host: String) -> Self {
        Self(
            state: .incompatible,
            message: "\(path) is built for \(plugin), this host is \(host); rebuild it for \(host)")
    }

    package static func abiMajor(plugin: String, host: SemanticVersion) -> Self {
        Self(
            state: .incompatible,
            message:
                "plugin built for ABI \(plugin), host supports \(host.major).\(host.minor); rebuild it against the installed assist_plugin.h"
        )
    }

    package static func abiTooNew(plugin: String, host: SemanticVersion) -> Self {
        Self(
            state: .incompatible,
            message:
                "plugin built for ABI \(plugin), host supports \(host.major).\(host.minor); it needs a newer Assist"
        )
    }

    package static func hostTooOld(needs: String, host: SemanticVersion) -> Self {
        Self(state: .incompatible, message: "plugin needs Assist \(needs) or newer, this is \(host); update Assist")
    }

    package static func untested(lastTested: String, floor: SemanticVersion) -> Self {
        Self(
            state: .incompatible,
            message:
                "plugin was last tested with Assist \(lastTested), older than \(floor) (incompatible, untested); update the plugin"
        )
    }

    package static func serviceMissing(_ service: String) -> Self {
        Self(state: .incompatible, message: "plugin requires the service \(service), which this host does not provide")
    }

    package static func duplicate(_ id: String, firstPath: String) -> Self {
        Self(
            state: .disabled,
            message: "another plugin with the id \(id) was found first, at \(firstPath); remove one of them")
    }

    package static func checksum(_ path: String) -> Self {
        Self(state: .disabled, message: "\(path) does not match the sha256 in its manifest; reinstall the plugin")
    }

    package static func dlopenFailed(_ text: String) -> Self {
        Self(state: .failedInit, message: "the library could not be loaded: \(text)")
    }

    package static func entryMissing(_ text: String) -> Self {
        Self(
            state: .failedInit,
            message:
                "the library has no \(PluginLoader.entrySymbol) symbol (\(text)); export it, see docs/plugin-abi.md"
        )
    }

    package static func entryInvalid(_ problem: String) -> Self {
        Self(state: .failedInit, message: "the plugin's entry table is invalid: \(problem)")
    }

    package static func entryMismatch(entry: String, manifest: String) -> Self {
        Self(
            state: .failedInit,
            message: "the library says it is \(entry) but its manifest says \(manifest); rebuild or reinstall it")
    }

    package static func initFailed(_ id: String) -> Self {
        Self(state: .failedInit, message: "\(id) refused to start in init; see the log for its reason")
    }

    package static func createFailed(_ reason: String) -> Self {
        Self(state: .failedInit, message: reason)
    }
}

/// A plugin's state, as `assist plugins list` shows it.
package enum PluginState: String, Sendable, Codable {
    /// Manifest checked, library not opened yet.
    case available
    /// Opened and initialised.
    case loaded
    /// Built for another ABI or host, or missing a required service.
    case incompatible
    /// The library, its entry, `init` or `create` failed.
    case failedInit = "failed-init"
    /// Stopped by a crash.
    case crashed
    /// Turned off by the admin or shadowed by a duplicate.
    case disabled
}
