// swift-tools-version:6.1
// PluginKit as installed with Assist (`make install` copies the Swift sources of PluginABI and PluginKit in
// beside this file): typed Swift over the installed C header, found through `pkg-config assist-plugin`.
// A plugin depends on it by path: `.package(path: "<prefix>/share/assist/swift/AssistPluginKit")`.
import PackageDescription

let package = Package(
    name: "AssistPluginKit",
    products: [.library(name: "AssistPluginKit", targets: ["PluginKit"])],
    targets: [
        .systemLibrary(name: "PluginAPI", pkgConfig: "assist-plugin"),
        .target(name: "PluginABI", dependencies: ["PluginAPI"]),
        .target(name: "PluginKit", dependencies: ["PluginAPI", "PluginABI"]),
    ]
)
