import Foundation

/// A source of frames, used only by the camera service's capture thread.
package protocol FrameSource: AnyObject {
    /// Names the source in English messages and reports ("the camera /dev/video0").
    var name: String { get }
    /// The bare file, folder or device name ("frames", "clip.mp4", "/dev/video0") for phrases in any
    /// language, which say themselves what kind of source it is.
    var label: String { get }
    /// True for a device that can be unplugged and come back.
    var isLive: Bool { get }
    /// The size and rate frames arrive at.
    var width: Int { get }
    var height: Int { get }
    var framesPerSecond: Double { get }
    /// The next frame, waiting for it at the source's pace; nil at the end of a file source. Throws
    /// `CameraError.lost` when a device goes away, `badFile` for a damaged file.
    func next() throws -> Frame?
    /// Reads a device control ("focus", "exposure", "zoom") as (value, minimum, maximum); nil when absent.
    func control(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)?
}

extension FrameSource {
    package func control(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)? { nil }
}

/// Sleeps so frames leave at `framesPerSecond`, like a camera.
struct FramePacer {
    let framesPerSecond: Double
    private var start: UInt64?
    private var count = 0

    init(framesPerSecond: Double) {
        self.framesPerSecond = framesPerSecond
    }

    /// Waits for the next frame's time; returns the monotonic time in ns.
    mutating func waitForNextFrame() -> UInt64 {
        let now = DispatchTime.now().uptimeNanoseconds
        let origin = start ?? now
        start = origin
        let due = origin + UInt64(Double(count) / max(0.1, framesPerSecond) * 1e9)
        count += 1
        if due > now { usleep(useconds_t((due - now) / 1_000)) }
        return max(due, now)
    }
}

/// A synthetic moving picture: grey bars with a bright square that circles the frame, so tests and
/// set-ups without a camera see motion. 640x480 at 30 fps unless told otherwise.
package final class PatternSource: FrameSource {
    package let width: Int
    package let height: Int
    package let framesPerSecond: Double
    private var pacer: FramePacer
    private var sequence: UInt64 = 0

    package init(width: Int = 640, height: Int = 480, framesPerSecond: Double = 30) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        pacer = FramePacer(framesPerSecond: framesPerSecond)
    }

    package var name: String { "the test pattern" }
    package var label: String { "pattern" }
    package var isLive: Bool { false }

    package func next() throws -> Frame? {
        let time = pacer.waitForNextFrame()
        let stride = width * 3
        let storage = FrameStorage(capacity: stride * height)
        let bytes = storage.bytes.assumingMemoryBound(to: UInt8.self)
        let angle = Double(sequence) * 2 * Double.pi / 90
        let side = height / 5
        let centreX = width / 2 + Int(Double(width / 3) * cos(angle))
        let centreY = height / 2 + Int(Double(height / 3) * sin(angle))
        for y in 0..<height {
            for x in 0..<width {
                let bar = UInt8(40 + (x * 8 / width) * 20)
                let inSquare = abs(x - centreX) < side / 2 && abs(y - centreY) < side / 2
                let value: UInt8 = inSquare ? 250 : bar
                let at = y * stride + x * 3
                bytes[at] = value
                bytes[at + 1] = value
                bytes[at + 2] = inSquare ? 250 : bar / 2
            }
        }
        defer { sequence += 1 }
        return Frame(
            storage: storage, format: .bgr24, width: width, height: height, stride: stride, timestampNs: time,
            sequence: sequence)
    }
}
