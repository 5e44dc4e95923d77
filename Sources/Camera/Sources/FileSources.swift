import Foundation

/// A still picture as a camera: decoded once, then the same memory is delivered at the frame rate.
package final class ImageSource: FrameSource {
    private let picture: Frame
    private var pacer: FramePacer
    private var sequence: UInt64 = 0
    package let framesPerSecond: Double

    /// Decodes `url` (PNG, JPEG, ...) to BGR24.
    package init(url: URL, framesPerSecond: Double = 10) throws {
        let file = try MediaFile(url: url)
        guard let (storage, _) = try file.nextPicture() else {
            throw CameraError.badFile(url.path, reason: "it holds no picture")
        }
        picture = Frame(
            storage: storage, format: .bgr24, width: file.width, height: file.height, stride: file.width * 3,
            timestampNs: 0, sequence: 0)
        self.framesPerSecond = framesPerSecond
        pacer = FramePacer(framesPerSecond: framesPerSecond)
        name = "the picture \(url.lastPathComponent)"
        label = url.lastPathComponent
    }

    package let name: String
    package let label: String
    package var isLive: Bool { false }
    package var width: Int { picture.width }
    package var height: Int { picture.height }

    package func next() throws -> Frame? {
        let time = pacer.waitForNextFrame()
        defer { sequence += 1 }
        return picture.restamped(timestampNs: time, sequence: sequence)
    }
}

/// The pictures in a folder, in name order, once, at the frame rate. A damaged picture is skipped and
/// reported through `onSkip`; the sequence ends after the last one.
package final class DirectorySource: FrameSource {
    /// The picture files the folder holds, by extension.
    static let extensions: Set<String> = ["png", "jpg", "jpeg", "bmp", "ppm", "pgm", "tif", "tiff", "webp"]
    private var files: [URL]
    private var pacer: FramePacer
    private var sequence: UInt64 = 0
    package let framesPerSecond: Double
    package let width: Int
    package let height: Int
    package let name: String
    package let label: String
    /// Called with a sentence when a picture is skipped, and once when one of another size is stretched.
    package var onSkip: ((String) -> Void)?
    private var scaler: Scaler?
    private var saidScaling = false

    /// Lists `url` and decodes its first picture to learn the size.
    package init(url: URL, framesPerSecond: Double = 10) throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else {
            throw CameraError.badFile(url.path, reason: "the folder does not exist or cannot be read")
        }
        files = names.filter { Self.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
            .map { url.appendingPathComponent($0) }
        guard let first = files.first else {
            throw CameraError.badFile(url.path, reason: "the folder holds no pictures")
        }
        let probe = try MediaFile(url: first)
        width = probe.width
        height = probe.height
        self.framesPerSecond = framesPerSecond
        pacer = FramePacer(framesPerSecond: framesPerSecond)
        name = "the pictures in \(url.lastPathComponent)"
        label = url.lastPathComponent
    }

    package var isLive: Bool { false }

    package func next() throws -> Frame? {
        while !files.isEmpty {
            let file = files.removeFirst()
            do {
                let media = try MediaFile(url: file)
                guard let (storage, _) = try media.nextPicture() else {
                    onSkip?("The picture \(file.lastPathComponent) holds no picture; skipped.")
                    continue
                }
                var picture = Frame(
                    storage: storage, format: .bgr24, width: media.width, height: media.height,
                    stride: media.width * 3, timestampNs: 0, sequence: sequence)
                if media.width != width || media.height != height {
                    // The stream keeps the first picture's size, as a camera does: another is stretched to it
                    // (left stays left), and that is said once.
                    let key = Scaler.Key(
                        sourceWidth: media.width, sourceHeight: media.height, sourceFormat: .bgr24,
                        targetWidth: width, targetHeight: height, targetFormat: .bgr24)
                    if scaler?.key != key { scaler = Scaler(key) }
                    guard let scaler else {
                        onSkip?("The picture \(file.lastPathComponent) could not be scaled; skipped.")
                        continue
                    }
                    if !saidScaling {
                        saidScaling = true
                        onSkip?(
                            "The picture \(file.lastPathComponent) is \(media.width)×\(media.height): it and others "
                                + "not \(width)×\(height) like the first are stretched to that size.")
                    }
                    picture = scaler.convert(picture)
                }
                let time = pacer.waitForNextFrame()
                defer { sequence += 1 }
                return Frame(
                    storage: picture.storage, format: .bgr24, width: width, height: height, stride: picture.stride,
                    timestampNs: time, sequence: sequence)
            } catch {
                onSkip?("The picture \(file.lastPathComponent) is damaged; skipped.")
            }
        }
        return nil
    }
}

/// A video file (MP4, AVI, MKV, ...) decoded with FFmpeg, once, at its own frame rate.
package final class VideoSource: FrameSource {
    private let file: MediaFile
    private var pacer: FramePacer
    private var sequence: UInt64 = 0
    package let framesPerSecond: Double
    package let name: String
    package let label: String

    /// Opens `url`; `framesPerSecond` overrides the file's rate.
    package init(url: URL, framesPerSecond: Double? = nil) throws {
        file = try MediaFile(url: url)
        self.framesPerSecond = framesPerSecond ?? (file.framesPerSecond > 0 ? file.framesPerSecond : 25)
        pacer = FramePacer(framesPerSecond: self.framesPerSecond)
        name = "the video \(url.lastPathComponent)"
        label = url.lastPathComponent
    }

    package var isLive: Bool { false }
    package var width: Int { file.width }
    package var height: Int { file.height }

    package func next() throws -> Frame? {
        guard let (storage, _) = try file.nextPicture() else { return nil }
        let time = pacer.waitForNextFrame()
        defer { sequence += 1 }
        return Frame(
            storage: storage, format: .bgr24, width: file.width, height: file.height, stride: file.width * 3,
            timestampNs: time, sequence: sequence)
    }
}
