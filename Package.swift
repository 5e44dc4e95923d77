// swift-tools-version:6.1
import PackageDescription

/// Linker flags that keep a plugin's only exported symbol `assist_plugin_entry` (ABI spec P8).
let pluginExports: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Plugins/exports.map"])
]

/// The modules whose loops run over every sample or pixel (sound, voice, speech's audio, camera frames) are
/// optimised in debug builds too: at -Onone their generic code ran 2–3 times slower (`assist listen` on five minutes
/// of sound: 5.4 s of a core, 3.3 s with Audio and Voice optimised), and under the sanitizers slower still, where
/// the voice suites are the longest part of a lane. Optimising every plugin's Core and PluginKit as well made the
/// debug build 105 s longer for 70 s less of test time, so only these four are. `assert` is compiled out there (none
/// of them uses it); `precondition` and bounds checks stay. The rest stays at -Onone for the debugger.
let optimised: [SwiftSetting] = [.unsafeFlags(["-O"])]

/// A first-party plugin is one folder, `Plugins/<name>`: its logic in `Core` (tested by `tests`), and `Entry`, one
/// file, the only member of the dynamic product `Assist<name>` (P5). Its phrases and data are in `Plugins/<name>/share/`.
struct FirstPartyPlugin {
    let name: String
    let core: [Target.Dependency]
    let tests: String
    let testDependencies: [Target.Dependency]

    var product: Product { .library(name: "Assist\(name)", type: .dynamic, targets: ["\(name)Plugin"]) }

    var targets: [Target] {
        [
            .target(name: "\(name)Core", dependencies: core, path: "Plugins/\(name)/Core"),
            .target(
                name: "\(name)Plugin", dependencies: [.target(name: "\(name)Core")], path: "Plugins/\(name)/Entry",
                linkerSettings: pluginExports),
            .testTarget(
                name: tests, dependencies: [.target(name: "\(name)Core"), "HostTesting"] + testDependencies),
        ]
    }
}

let firstPartyPlugins = [
    FirstPartyPlugin(name: "TalkingClock", core: ["PluginKit"], tests: "TalkingClockCoreTests", testDependencies: []),
    // light: a tone that follows the brightness where the camera points (photos through OCR's picture reader).
    FirstPartyPlugin(name: "Light", core: ["PluginKit", "OCR"], tests: "LightCoreTests", testDependencies: ["Audio"]),
    // colour: the colour where the camera points, in plain words, white-balanced (photos through OCR's reader).
    FirstPartyPlugin(name: "Colour", core: ["PluginKit", "OCR"], tests: "ColourCoreTests", testDependencies: []),
    // barcode: EAN, UPC, Code 128 and QR through zbar's C API, and a person's own labels for codes.
    FirstPartyPlugin(
        name: "Barcode", core: ["PluginKit", "OCR", "CZBar"], tests: "BarcodeCoreTests", testDependencies: []),
    FirstPartyPlugin(
        name: "ReadText", core: ["PluginKit", "OCR", "CPageGeometry", "CPdf", "CMediaInfo", "Digest"],
        tests: "ReadTextCoreTests",
        testDependencies: ["OCR"]),
    FirstPartyPlugin(
        name: "FindObject", core: ["PluginKit", "OCR", "ObjectDetection"], tests: "FindObjectCoreTests",
        testDependencies: ["ObjectDetection", "CollectVideosCore"]),
    FirstPartyPlugin(
        name: "Survey", core: ["PluginKit", "CAudioEncoder"], tests: "SurveyTests",
        testDependencies: ["PluginKit", "PluginHost", "Audio"]),
    // photo-sensor (AWARE photos): a background plugin that records new media in watched folders.
    FirstPartyPlugin(
        name: "PhotoSensor", core: ["PluginKit", "CMediaInfo", "ObjectDetection", "Digest"],
        tests: "PhotoSensorCoreTests", testDependencies: ["PluginKit", "PluginHost", "Digest", "Storage"]),
    // collect-videos (ORBIT Camera): consent, things and clips for the ORBIT Data server.
    FirstPartyPlugin(
        name: "CollectVideos",
        core: ["PluginKit", "CVideoEncoder", "CMediaInfo", .product(name: "Ink", package: "Ink")],
        tests: "CollectVideosTests", testDependencies: ["PluginKit", "PluginHost", "Digest"]),
]

/// What a benchmark that assembles a whole host in its own process (survey, terminal) stands on.
let hostBenchDependencies: [Target.Dependency] = [
    "PluginHost", "AssistCore", "Interaction", "Audio", "Speech", "Runtime", "HostTesting",
    .product(name: "Logging", package: "swift-log"),
]

let package = Package(
    name: "Assist",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "assist", targets: ["Host"]),
        // Typed Swift for plugin authors over the C ABI (also installed as a package: share/swift/AssistPluginKit).
        .library(name: "AssistPluginKit", targets: ["PluginKit"]),
        // First-party plugins' products: firstPartyPlugins, below.
        // FFmpeg behind a table, opened by the camera service only when a camera is first used.
        .library(name: "AssistMedia", type: .dynamic, targets: ["CFFmpegShims"]),
        .library(name: "AssistDetector", type: .dynamic, targets: ["CDetector"]),
        .library(name: "AssistVideoReader", type: .dynamic, targets: ["CVideoReader"]),
    ] + firstPartyPlugins.map(\.product),
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/JohnSundell/Ink", from: "0.6.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        // The low-vision view's page and socket on loopback (docs/view.md).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // The stable C ABI: the header plus one .c file (P14).
        .target(name: "PluginAPI", path: "Sources/PluginAPI"),
        // The ABI's one rule for reading versioned structs, used by the host and by PluginKit alike.
        .target(name: "PluginABI", dependencies: ["PluginAPI"]),
        .target(name: "CSharedFrames"),
        // The file a fault of the host's process leaves for the next start (CrashGuard).
        .target(name: "CFaultMark"),
        // How the process's memory is kept: malloc's arenas limited to two a core (issue 37).
        .target(name: "CProcessMemory"),
        .target(
            name: "CPluginBridge", dependencies: ["PluginAPI", "CSharedFrames"],
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("seccomp")]),
        // espeak-ng and libcurl are opened on first use (dlopen), so commands that never speak or upload do not
        // load the 60-odd libraries they bring.
        .target(name: "CEspeakNG", linkerSettings: [.linkedLibrary("dl")]),
        // pocketsphinx, opened on first use like espeak-ng: only a command that listens loads it.
        .target(name: "CPocketSphinx", linkerSettings: [.linkedLibrary("dl")]),
        // PDF documents for read-text: Poppler's GLib API and cairo, opened with dlopen on first use.
        .target(name: "CPdf", linkerSettings: [.linkedLibrary("dl")]),
        // speexdsp's echo canceller and resampler, opened on first use too: voice hears through Assist's speech.
        .target(name: "CEchoCancel", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CALSA", path: "Sources/CALSA", linkerSettings: [.linkedLibrary("asound")]),
        .target(name: "CV4L2Shims", linkerSettings: [.linkedLibrary("v4l2")]),
        .target(name: "CMediaAPI"),
        .target(
            name: "CFFmpegShims", dependencies: ["CMediaAPI"],
            // libavformat and libavcodec are opened with dlopen on the first file (assist_ffmpeg.c).
            linkerSettings: [.linkedLibrary("swscale"), .linkedLibrary("avutil"), .linkedLibrary("dl")]
        ),
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(
            name: "CZBar", path: "Plugins/Barcode/CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        // Shared by the plugins that read text (read-text, find-object); the host never links it.
        .target(name: "OCR", dependencies: ["CTesseract"], path: "Plugins/Shared/OCR"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "Storage", dependencies: ["CSQLite"]),
        // SHA-256 from OpenSSL's libcrypto (model checksums, photo-sensor's content hashes, the kiosk's allowed
        // libraries) and the kiosk's salted PIN hash.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "Digest", dependencies: ["CLibCrypto"]),
        // Plugin packages (docs/plugin-packages.md): one file per plugin, read as hostile input with libarchive.
        // libarchive is opened on first use (it brings some thirty libraries with it).
        .target(name: "CArchiveShims", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "PluginPackage", dependencies: ["CArchiveShims", "Digest"]),
        // The kiosk's set-up, PIN and admin gesture (docs/kiosk.md).
        .target(name: "Kiosk", dependencies: ["AssistCore", "Digest", "Interaction"]),
        .target(name: "CCurlShims", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "Outbox",
            dependencies: [
                "Storage", "CCurlShims", "AssistCore", "Runtime", .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "Camera",
            dependencies: [
                "CV4L2Shims", "CMediaAPI", "CSharedFrames", "Runtime", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: optimised
        ),
        .target(name: "Audio", dependencies: ["CALSA"], swiftSettings: optimised),
        .systemLibrary(
            name: "CSpeechd", pkgConfig: "speech-dispatcher", providers: [.apt(["libspeechd-dev"])]
        ),
        // The low-vision view (docs/view.md): what is heard, in large print, on a page served on loopback.
        // ViewState is what pages are shown and what they may say (no server: the fuzz target builds it alone).
        .target(name: "ViewState"),
        .target(
            name: "View",
            dependencies: [
                "ViewState",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Voice commands: keyphrase spotting over the microphone (docs/voice.md).
        .target(
            name: "Voice", dependencies: ["CPocketSphinx", "CEchoCancel", "Audio", "Runtime"], swiftSettings: optimised),
        .target(
            name: "Speech",
            dependencies: [
                "CEspeakNG", "CSpeechd", "Audio", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: optimised
        ),

        // Host building blocks.
        .target(name: "Runtime", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // Config files, settings, events and the journal, paths, versions, plain text: what the host's services
        // share, below them all.
        // toml++'s debug assertions answered instead of aborting (assist_toml_guard.h).
        .target(name: "CTOMLGuard", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")]),
        .target(
            name: "AssistCore",
            dependencies: [
                "CTOMLGuard",
                "Runtime", .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        .target(
            name: "Interaction",
            dependencies: ["Runtime", "AssistCore", "Speech", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "PluginHost",
            dependencies: [
                "PluginAPI", "PluginABI", "CPluginBridge", "Runtime", "AssistCore", "Interaction", "Audio", "Speech",
                "Camera", "Storage", "Outbox", "CFaultMark", "Digest",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Everything `assist` does, as a library the tests import: the session and its services, the shell, voice,
        // the kiosk, plugin packages and checks, the doctor's checks.
        .target(
            name: "AssistApp",
            dependencies: [
                "PluginHost", "CPluginBridge", "AssistCore", "Interaction", "Runtime", "Speech", "Audio", "Camera",
                "Outbox", "Voice", "Digest", "Kiosk", "PluginPackage", "Storage", "View", "ViewState",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `assist` executable: main.swift and argument-parser commands that parse and hand over to AssistApp.
        .executableTarget(
            name: "Host",
            dependencies: [
                "AssistApp", "PluginHost", "CPluginBridge", "AssistCore", "Interaction", "Runtime", "Speech", "Audio",
                "Camera", "Outbox", "Voice", "Digest", "Kiosk", "PluginPackage", "CProcessMemory",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Swift conveniences for plugin authors; linked into each Swift plugin, never into the host.
        .target(name: "PluginKit", dependencies: ["PluginAPI", "PluginABI"]),

        // Benchmarks (run by `make bench`).
        .executableTarget(
            name: "AudioBench",
            dependencies: [
                "Audio", "Speech", "CEspeakNG", "HostTesting", .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/AudioBench"
        ),

        .executableTarget(
            name: "ReadTextBench",
            dependencies: [
                "ReadTextCore", "OCR", "Audio", "Speech", "HostTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/ReadTextBench"
        ),
        .executableTarget(
            name: "BarcodeBench", dependencies: ["BarcodeCore", "OCR", "HostTesting"], path: "bench/BarcodeBench"),
        .executableTarget(
            name: "LightBench", dependencies: ["LightCore", "Audio", "HostTesting"], path: "bench/LightBench"),
        .executableTarget(
            name: "FindObjectBench", dependencies: ["FindObjectCore", "ObjectDetection", "HostTesting"],
            path: "bench/FindObjectBench"),
        .executableTarget(
            name: "OutboxBench",
            dependencies: ["Outbox", "HostTesting", .product(name: "Logging", package: "swift-log")],
            path: "bench/OutboxBench"
        ),
        .executableTarget(
            name: "StorageBench",
            dependencies: ["PluginHost", "HostTesting", .product(name: "GRDB", package: "GRDB.swift")],
            path: "bench/StorageBench"
        ),
        .executableTarget(
            name: "SurveyBench",
            dependencies: hostBenchDependencies,
            path: "bench/SurveyBench"
        ),
        .executableTarget(
            name: "TerminalBench",
            dependencies: hostBenchDependencies,
            path: "bench/TerminalBench"
        ),
        .executableTarget(
            name: "CameraBench",
            dependencies: ["Camera", "HostTesting", .product(name: "Logging", package: "swift-log")],
            path: "bench/CameraBench"
        ),

        // Page geometry for photographed pages: OpenCV finds and flattens the page, Leptonica measures the skew.
        .target(
            name: "CPageGeometry",
            path: "Plugins/Shared/CPageGeometry",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4", "-std=c++17"])],
            linkerSettings: [
                .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"), .linkedLibrary("lept"),
                .linkedLibrary("stdc++"),
            ]
        ),
        // The detector find-object and photo-sensor link (docs/detector.md).
        .target(
            name: "ObjectDetection",
            dependencies: ["CDetectorAPI", "Digest"],
            path: "Plugins/Shared/ObjectDetection"),
        .target(
            name: "CDetectorAPI", path: "Plugins/Shared/CDetectorAPI", linkerSettings: [.linkedLibrary("dl")]),
        // YOLO through OpenCV DNN, the follower between detections through its optical flow, and the embedder
        // that teaches a person's own things (C++ behind a C header), the library libAssistDetector.so that ObjectDetection
        // opens on first use; Debian ships no opencv4.pc, hence the flags.
        .target(
            name: "CDetector",
            dependencies: ["CDetectorAPI"],
            path: "Plugins/Shared/CDetector",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4", "-std=c++17"])],
            linkerSettings: [
                .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_video"), .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_core"), .linkedLibrary("stdc++"),
            ]
        ),
        // A video read picture by picture for teaching (OpenCV's videoio), libAssistVideoReader.so: videoio brings
        // some two hundred libraries (GStreamer, GDAL, Poppler) that a search never needs.
        .target(
            name: "CVideoReader",
            dependencies: ["CDetectorAPI"],
            path: "Plugins/Shared/CVideoReader",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4", "-std=c++17"])],
            linkerSettings: [
                .linkedLibrary("opencv_videoio"), .linkedLibrary("opencv_core"), .linkedLibrary("stdc++"),
            ]
        ),

        // AAC .m4a takes for the survey, with FFmpeg's own encoder (only when an admin asks for them).
        .target(
            name: "CAudioEncoder", path: "Plugins/Shared/CAudioEncoder",
            linkerSettings: [.linkedLibrary("dl")]),

        // Sizes, rotations, durations and EXIF of media files (FFmpeg, libexif, libheif opened on first use).
        .target(
            name: "CMediaInfo", path: "Plugins/Shared/CMediaInfo",
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("m")]),

        .target(
            name: "CVideoEncoder", path: "Plugins/Shared/CVideoEncoder", linkerSettings: [.linkedLibrary("dl")]),

        // Fuzz targets for every parser of outside data (`make fuzz`; Tests/Fuzz/README.md).
        .executableTarget(
            name: "AssistFuzz",
            dependencies: [
                "PluginHost", "AssistCore", "Interaction", "Outbox", "Camera", "OCR", "ReadTextCore", "SurveyCore",
                "PhotoSensorCore", "CMediaInfo", "CollectVideosCore", "PluginPackage", "CPluginBridge", "Audio",
                "BarcodeCore", "ViewState",
            ],
            path: "Tests/Fuzz", exclude: ["corpus", "regressions", "README.md"]),

        // Tests.
        // A host whose services record the structs a plugin in a helper sends (bridge_probe.h).
        .target(name: "BridgeProbe", dependencies: ["PluginAPI", "CPluginBridge"], path: "Tests/BridgeProbe"),
        // The test process ignores SIGPIPE from its start (assist_test_process.h).
        .target(name: "CTestProcess"),
        .target(
            name: "HostTesting",
            dependencies: [
                "PluginHost", "Interaction", "Runtime", "Audio", "Camera", "Speech", "Digest", "CTestProcess",
                "AssistApp",
            ]),
        .testTarget(
            name: "PluginHostTests",
            dependencies: ["PluginHost", "AssistCore", "PluginABI", "PluginKit", "HostTesting", "BridgeProbe"]),
        .testTarget(name: "InteractionTests", dependencies: ["Interaction", "AssistCore", "HostTesting", "Speech"]),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "Audio", "HostTesting"]),
        .testTarget(name: "AudioTests", dependencies: ["Audio", "HostTesting"]),
        .testTarget(name: "CameraTests", dependencies: ["Camera", "HostTesting"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "HostTesting"]),
        .testTarget(
            name: "OutboxTests",
            dependencies: ["Outbox", "Storage", "HostTesting", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "HostCLITests",
            dependencies: ["HostTesting", "Audio", "Outbox", "Storage", "Runtime", "Kiosk", "Digest"],
            // The view's browser half, run with Playwright's Python (ViewBrowserTests).
            exclude: ["view_browser.py"]),
        .testTarget(name: "FuzzReplayTests", dependencies: ["HostTesting"]),
        .testTarget(
            name: "AssistAppTests",
            dependencies: [
                "AssistApp", "AssistCore", "Interaction", "Kiosk", "PluginHost", "PluginPackage", "HostTesting",
                "ViewState", "Speech",
            ]),
        .testTarget(name: "VoiceTests", dependencies: ["Voice", "Audio", "HostTesting", "Interaction"]),
    ] + firstPartyPlugins.flatMap(\.targets)
)
