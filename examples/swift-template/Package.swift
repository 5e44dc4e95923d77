// swift-tools-version:6.1
import PackageDescription

// A third-party Assist plugin in Swift, built against an installed Assist: PluginKit from
// <prefix>/share/assist/swift/AssistPluginKit (set ASSIST_PLUGINKIT for another prefix), the C header through
// `pkg-config assist-plugin`. Build it with the same Swift toolchain as the host: Linux Swift has no stable ABI.
let kit = Context.environment["ASSIST_PLUGINKIT"] ?? "/usr/local/share/assist/swift/AssistPluginKit"

let package = Package(
    name: "Greeter",
    products: [.library(name: "Greeter", type: .dynamic, targets: ["Greeter"])],
    dependencies: [.package(path: kit)],
    targets: [
        .target(
            name: "Greeter",
            dependencies: [.product(name: "AssistPluginKit", package: "AssistPluginKit")],
            // Export only assist_plugin_entry (the version script lives in this package: unsafeFlags work
            // only in a root package).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/exports.map"])]
        )
    ]
)
