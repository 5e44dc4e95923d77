// swift-tools-version:6.1
import PackageDescription

// A third-party Assist plugin in Swift, built against the installed header (`pkg-config assist-plugin`).
// Build it with the same Swift toolchain as the host: Linux Swift has no stable ABI.
let package = Package(
    name: "Greeter",
    products: [.library(name: "Greeter", type: .dynamic, targets: ["Greeter"])],
    targets: [
        .systemLibrary(name: "CAssistPlugin", pkgConfig: "assist-plugin"),
        .target(
            name: "Greeter",
            dependencies: ["CAssistPlugin"],
            // Export only assist_plugin_entry (the version script lives in this package: unsafeFlags work
            // only in a root package).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/exports.map"])]
        ),
    ]
)
