import AssistCore
import Audio
import BarcodeCore
import CMediaInfo
import CPluginBridge
import Camera
import CollectVideosCore
import Foundation
import Interaction
import OCR
import Outbox
import PhotoSensorCore
import PluginHost
import PluginPackage
import ReadTextCore
import SurveyCore
import ViewState

import struct PluginKit.PhraseTable

/// Every parser of outside data, each a function of arbitrary bytes that must return without crashing,
/// hanging or growing without bound. `make fuzz` runs each under libFuzzer (ASSIST_FUZZ_TARGET names it);
/// the tests replay the seed corpus and every crash ever found through the same functions.
enum FuzzTargets {
    static let all: [String: @Sendable (Data) -> Void] = [
        "manifest": manifest, "config": config, "journal": journal, "outbox-job": outboxJob,
        "multipart": multipart, "elf": elf, "keys": keys, "phrases": phrases, "picture": picture,
        "photo": photo, "plain-text": plainText, "page-geometry": pageGeometry, "survey-definition": surveyDefinition,
        "media-header": mediaHeader, "media-details": mediaDetails, "study-text": studyText, "package": package,
        "helper-protocol": helperProtocol, "services": ServicesTarget.run, "wav": wav, "barcode": barcode,
        "view-message": viewMessage,
    ]

    /// A message a page sends over the view's socket (docs/view.md): read, and taken by a hub as a page's, with
    /// a question and settings open; what it asks for is only recorded.
    static func viewMessage(_ data: Data) {
        let hub = ViewHub(settings: ["view.text-size": "48"])
        hub.ask(.init(kind: .choice, prompt: "Choose", choices: ["A", "B"]))
        hub.camera(open: true)
        let page = hub.connect(FuzzOutlet())
        hub.onInput = { _ in }
        hub.onPreview = { _, zoom in precondition((1...8).contains(zoom), "a zoom outside 1…8 reached the camera") }
        hub.received(String(decoding: data, as: UTF8.self), from: page)
        hub.disconnect(page)
    }

    /// Takes what a hub sends a page and throws it away.
    struct FuzzOutlet: ViewOutlet {
        func send(_ message: String) {}
        func send(picture: [UInt8]) {}
        func close() {}
    }

    /// A file the targets that read paths write their input to, one per process.
    static let scratch = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("assist-fuzz-\(getpid())")

    /// Whether the scratch folder's removal at exit is set: the replays run as processes of the test suite and the
    /// sweep, each with a folder of its own, which they left in the temporary folder.
    nonisolated(unsafe) private static var removedAtExit = false

    static func writeScratch(_ data: Data, name: String) -> URL {
        if !removedAtExit {
            removedAtExit = true
            atexit { try? FileManager.default.removeItem(at: FuzzTargets.scratch) }
        }
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let url = scratch.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: url.path, contents: data)
        return url
    }

    /// `manifest.json` files of third-party plugins.
    static func manifest(_ data: Data) {
        let url = writeScratch(data, name: "manifest.json")
        if case .success = Result(catching: { try PluginManifest.load(from: url) }) {} else {}
    }

    /// A message on a plugin helper's socket (docs/plugin-isolation.md), read as the host or the helper reads
    /// what the other side sent: storage values and rows, outbox requests and outcomes, HTTP fields, dialog
    /// results, and every service call the generated serving reads (scripts/gen-bridge.py).
    static func helperProtocol(_ data: Data) {
        data.withUnsafeBytes { bytes in
            let base = bytes.bindMemory(to: UInt8.self).baseAddress
            assist_bridge_fuzz_decode(base, bytes.count)
            assist_bridge_fuzz_serve(base, bytes.count)
        }
    }

    /// A plugin package (`assist plugins install`): read through, and unpacked when it passes, into a folder
    /// that is removed again.
    static func package(_ data: Data) {
        let url = writeScratch(data, name: "fuzz.assist-plugin")
        guard let contents = try? PluginArchive.inspect(url) else { return }
        let folder = scratch.appendingPathComponent("unpacked")
        try? FileManager.default.removeItem(at: folder)
        try? PluginArchive.unpack(url, into: folder, expecting: contents, executable: "libx.so")
        try? FileManager.default.removeItem(at: folder)
    }

    /// What photo-sensor reads itself: a file's first bytes (the content sniffer) and the kernel's inotify
    /// records, which it walks without trusting their lengths.
    static func mediaHeader(_ data: Data) {
        _ = MediaSniffer.sniff(data)
        _ = MediaSniffer.classify(name: "x.jpg", header: data, includeAudio: true)
        _ = InotifyEvents.parse(data)
    }

    /// What a media file says of itself: an EXIF block (through libexif and the fields read from it), EXIF date
    /// and offset text, and the whole input as a file probed the way its bytes say (FFmpeg, libheif, libexif).
    static func mediaDetails(_ data: Data) {
        var info = assist_media_info()
        data.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            _ = assist_media_exif_block(base, UInt32(raw.count), &info)
        }
        let text = String(decoding: data.prefix(32), as: UTF8.self)
        _ = MediaDetails.takenMs(date: text, offset: String(text.suffix(6)))
        guard let format = MediaSniffer.sniff(data), data.count < 1 << 20 else { return }
        let url = writeScratch(data, name: "media")
        _ = MediaDetails.read(url.path, format: format)
        // Decoded for recognition, small, turned by an orientation the input chooses (1–8, or none).
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        let heif: Int32 = format == .heif || format == .avif ? 1 : 0
        let orientation = Int32((data.last ?? 0) % 9)
        if assist_media_decode_bgr(url.path, heif, 48, orientation, &pixels, &width, &height) == 0 {
            precondition(pixels != nil && width > 0 && height > 0 && max(width, height) <= 48)
            free(pixels)
        }
    }

    /// collect-videos' study texts (an admin's markdown: metadata block, natural order, anchors, the outline
    /// through Ink, the saved page) and a server's 400 body read as sentences.
    static func studyText(_ data: Data) {
        let text = StudyText(markdown: String(decoding: data, as: UTF8.self))
        _ = text.statements
        _ = text.page(title: "fuzz")
        for piece in text.pieces { _ = StudyText.anchor(piece.text) }
        _ = CollectVideos.fieldMessages(data, phrases: PhraseTable(directory: nil, language: "en"))
    }

    /// Survey definitions from research teams (`/etc/assist/surveys/*.json`): read, checked, and when valid,
    /// walked through as a participant would (every option of every item chosen, then going back).
    /// A WAV file read whole, and read a block at a time as a file standing in for the microphone is (each block
    /// converted to 16 kHz mono): the two must agree.
    static func wav(_ data: Data) {
        let whole = try? WavFile.parse(data, path: "fuzz.wav")
        let url = writeScratch(data, name: "fuzz.wav")
        guard let input = try? WavFileInput(url: url, format: .recognition) else {
            precondition(whole == nil, "the header read whole but not in blocks")
            return
        }
        guard let whole else { preconditionFailure("the header read in blocks but not whole") }
        var blocks: [Int16] = []
        while let chunk = try? input.read(frames: 320), !chunk.isEmpty, blocks.count < 1_000_000 { blocks += chunk }
        let converted = AudioConverter.convert(whole.samples, from: whole.format, to: .recognition)
        precondition(blocks == Array(converted.prefix(blocks.count)), "blocks differ from the whole file converted")
    }

    static func surveyDefinition(_ data: Data) {
        guard case .valid(let definition) = DefinitionLoader.load(data) else { return }
        guard var flow = SurveyFlow(definition: definition, parts: definition.parts.map(\.id)) else { return }
        for _ in 0..<200 {
            let item = flow.current
            if item.kind == .multi { for index in item.options.indices { _ = flow.toggle(index) } }
            if item.kind == .single { _ = flow.choose(item.options.count - 1) }
            if item.kind == .recording || item.kind == .location || item.kind == .gate {
                flow.setValue("x", for: item.id)
            }
            if case .asking = flow.advance() { continue }
            break
        }
        _ = flow.answers
        while flow.back() {}
    }

    /// `config.toml` files, then the host's check of the values found.
    /// A config file checked against the host's settings and against settings features declare in their
    /// manifests (one of each kind, as `HostSession` passes them).
    static func config(_ data: Data) {
        guard let text = String(validating: data, as: UTF8.self), let entries = try? ConfigFile.entries(text)
        else { return }
        _ = SettingsSchema.problems(in: entries, file: "f")
        _ = SettingsSchema.problems(in: entries, file: "f", declared: declaredSettings)
    }

    static let declaredSettings: [String: SettingsSchema.Kind] = [
        "survey.rounds": .wholeNumber(1...9), "find-object.gain": .number(0...2), "read-text.tilt": .flag,
        "survey.site": .text, "collect-videos.slot": .oneOf(["1", "2", "clean"]), "photo-sensor.folders": .list,
    ]

    /// `events.jsonl`, which other sessions and crashes write.
    static func journal(_ data: Data) {
        _ = EventJournal.parse(data, prefix: "assist.")
    }

    /// A stored outbox job's request, as the outbox decodes it from its database.
    static func outboxJob(_ data: Data) {
        guard let request = try? JSONDecoder().decode(OutboxRequest.self, from: data) else { return }
        _ = request.loggable
        if case .multipart(let boundary, let parts) = request.body {
            _ = try? MultipartLayout(boundary: boundary, parts: parts.filter { $0.path == nil }).render()
        }
    }

    /// Multipart bodies laid out from plugin-given names, values and file names: the length announced must be
    /// the length rendered.
    static func multipart(_ data: Data) {
        let fields = data.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard let boundary = fields.first, !boundary.isEmpty else { return }
        var parts: [OutboxRequest.Part] = []
        var index = 1
        while index + 1 < fields.count {
            parts.append(.field(fields[index], fields[index + 1]))
            index += 2
        }
        let file = writeScratch(Data(fields.last?.utf8 ?? "".utf8), name: "part.bin")
        parts.append(.file(fields.last ?? "", path: file.path, filename: fields.last ?? "", contentType: "a/b"))
        guard let layout = try? MultipartLayout(boundary: boundary, parts: parts),
            let body = try? layout.render()
        else { return }
        precondition(Int64(body.count) == layout.length, "the announced length is not the body's")
    }

    /// Plugin libraries' ELF headers, read before dlopen.
    static func elf(_ data: Data) {
        _ = ELFInspector.parse([UInt8](data.prefix(64)))
        _ = ELFInspector.parse([UInt8](data.prefix(64)), requireSharedObject: false)
    }

    /// Terminal input, split at every point a read could end.
    static func keys(_ data: Data) {
        var decoder = KeyDecoder()
        let bytes = [UInt8](data)
        let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        _ = decoder.feed(Array(bytes[..<cut]))
        _ = decoder.feed(Array(bytes[cut...]))
        _ = decoder.flush()
        precondition(!decoder.isHolding, "flush leaves nothing held")
    }

    /// Phrase tables (`phrases.<lang>.json`) and the filling of their placeholders.
    static func phrases(_ data: Data) {
        let table = PhraseBook.table(from: data)
        let book = PhraseBook(language: "en", primary: table, english: table)
        for key in table.keys.prefix(20) {
            _ = book.text(key, ["name": String(decoding: data.prefix(300), as: UTF8.self), "count": "3"])
        }
    }

    /// Pictures through the camera's decoder (FFmpeg behind libAssistMedia.so, the shim instrumented).
    static func picture(_ data: Data) {
        let url = writeScratch(data, name: "picture")
        guard let source = try? ImageSource(url: url, framesPerSecond: 1_000) else { return }
        _ = try? source.next()
    }

    /// Photos through read-text's reader (Leptonica's header check, decoding and shrinking).
    static func photo(_ data: Data) {
        let url = writeScratch(data, name: "photo")
        _ = try? TesseractEngine.loadGray(url, largestSide: 512)
    }

    /// Any picture through read-text's page geometry (OpenCV's page finding and warp, Leptonica's skew
    /// search, the quarter turns): two bytes choose the size (16 to 271 pixels a side), the rest are the pixels,
    /// repeated to fill it.
    static func pageGeometry(_ data: Data) {
        guard data.count >= 3 else { return }
        let bytes = [UInt8](data)
        let width = 16 + Int(bytes[0])
        let height = 16 + Int(bytes[1])
        let source = bytes[2...]
        let pixels = (0..<width * height).map { source[source.startIndex + $0 % source.count] }
        pixels.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            let outcome = PageGeometry.straighten(gray: base, width: width, height: height, stride: width)
            if let picture = outcome.picture {
                precondition(picture.pixels.count == picture.width * picture.height)
            }
            let turned = PageGeometry.turned(gray: base, width: width, height: height, stride: width, quarters: 1)
            precondition(turned.map { $0.width == height && $0.height == width } ?? true)
        }
    }

    /// What is printed and spoken of outside text.
    /// barcode's labels file and code text, and zbar (native code) on the bytes as a grey picture: the first
    /// byte gives the width (8 to 263 pixels), the rest are the pixels.
    static func barcode(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        if case .success(let rows) = LabelsCSV.read(text) {
            let written = LabelsCSV.write(rows.map(\.fields))
            precondition(written.hasPrefix("type,code,name"))
        }
        let cleaned = CodeText.clean(text)
        precondition(!cleaned.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        for kind in FoundCode.Kind.allCases {
            let code = FoundCode(kind: kind, text: text)
            _ = CodeText.checkDigitHolds(code)
            _ = CodeText.key(code)
            let said = CodeText.spoken(code) { key, values in values.values.joined(separator: " ") + key }
            precondition(kind == .ean13 || kind == .ean8 || kind == .upcA || kind == .upcE || said.count < 700)
        }
        guard let first = data.first else { return }
        let width = 8 + Int(first)
        let pixels = [UInt8](data.dropFirst())
        let height = pixels.count / width
        guard height >= 1 else { return }
        _ = CodeScanner().scan(grey: pixels, width: width, height: height, stride: width)
        _ = BarLikeness(grey: pixels, width: width, height: height, stride: width)
    }

    static func plainText(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let cleaned = PlainText.clean(text)
        precondition(!cleaned.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\r" })
        precondition(PlainText.value(text).count <= PlainText.valueLimit + 40)
        _ = PlainText.message(text)
    }
}

/// libFuzzer's entry: runs the target `ASSIST_FUZZ_TARGET` names.
@_cdecl("LLVMFuzzerTestOneInput")
public func assistFuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzTargets.selected(data)
    return 0
}

/// libFuzzer's set-up, before any input is timed: the selected target runs once over the first seeds in each folder
/// libFuzzer is given, so what a target loads on its first input is loaded before the 1 s limit per input applies
/// (FFmpeg's libraries, opened with `dlopen` by the picture and media targets, took over a second on a fresh machine
/// under ASan: CI's run was stopped on the first, empty input).
@_cdecl("LLVMFuzzerInitialize")
public func assistFuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: OpaquePointer?) -> Int32 {
    _ = FuzzTargets.selected
    let folders = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
    for folder in folders {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().prefix(8)
        for name in names {
            FuzzTargets.selected(FileManager.default.contents(atPath: "\(folder)/\(name)") ?? Data())
        }
    }
    FuzzTargets.selected(Data())
    return 0
}

extension FuzzTargets {
    /// The target named by ASSIST_FUZZ_TARGET; the process stops at once when there is none.
    static let selected: @Sendable (Data) -> Void = {
        let name = ProcessInfo.processInfo.environment["ASSIST_FUZZ_TARGET"] ?? ""
        guard let target = all[name] else {
            FileHandle.standardError.write(
                Data("Set ASSIST_FUZZ_TARGET to one of: \(all.keys.sorted().joined(separator: ", ")).\n".utf8))
            exit(64)
        }
        return target
    }()
}
