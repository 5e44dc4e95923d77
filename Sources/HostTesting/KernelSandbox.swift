import PluginHost

/// Whether this kernel can shut a plugin's helper in fully (Landlock and seccomp): where it cannot, the sandbox
/// tests check the warning the user hears instead of the refusals.
package enum KernelSandbox {
    package static var isFull: Bool { SandboxLayers.kernel().layers.isFull }
    /// What this kernel lacks, as the warning names it.
    package static var missing: String { SandboxLayers.kernel().missing }
}
