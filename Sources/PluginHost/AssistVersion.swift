import AssistCore
import PluginAPI

/// The versions this host speaks.
package enum AssistVersion {
    /// The host's own version.
    package static let current = SemanticVersion(1, 0, 0)
    /// The oldest host version whose plugins are still known to work (rule 4 of the ABI spec).
    package static let compatFloor = SemanticVersion(1, 0, 0)
    /// The ABI this host implements, from the header.
    package static let abi = SemanticVersion(Int(ASSIST_ABI_MAJOR_VALUE), Int(ASSIST_ABI_MINOR_VALUE), 0)
}
