import Camera
import Testing

@Suite("Crops, zoom and sizes")
struct FrameGeometryTests {
    static func frame(_ width: Int, _ height: Int, _ format: PixelFormat = .bgr24) -> Frame {
        let stride = width * format.bytesPerPixel
        return Frame(
            storage: FrameStorage(capacity: stride * height), format: format, width: width, height: height,
            stride: stride, timestampNs: 0, sequence: 0)
    }

    @Test(arguments: [(1.0, 1920, 1080), (1.25, 1536, 864), (1.8, 1067, 600), (3.0, 640, 360), (5.0, 384, 216)])
    func zoomIsACentredCropOfTheSameMemory(zoom: Double, width: Int, height: Int) {
        let full = Self.frame(1920, 1080)
        let view = full.zoomed(zoom, square: false)
        #expect(view.width == width && view.height == height)
        #expect(view.storage === full.storage, "no copy")
        let left = (1920 - width) / 2
        let top = (1080 - height) / 2
        #expect(view.offset == top * full.stride + left * 3)
    }

    @Test func squareCropComesFirstThenZoom() {
        let full = Self.frame(1920, 1080)
        let square = full.zoomed(1, square: true)
        #expect(square.width == 1080 && square.height == 1080 && square.offset == 420 * 3)
        let both = full.zoomed(2, square: true)
        #expect(both.width == 540 && both.height == 540)
        #expect(both.offset == 270 * full.stride + (420 + 270) * 3)
    }

    @Test func yuyvCropsKeepPixelPairsWhole() {
        let view = Self.frame(641, 480, .yuyv).cropped(x: 3, y: 1, width: 101, height: 10)
        #expect(view.offset % 4 == view.stride % 4, "starts on a pair")
        #expect(view.width % 2 == 0)
    }

    @Test func cropsAreClampedToTheFrame() {
        let view = Self.frame(100, 100).cropped(x: 90, y: -5, width: 50, height: 500)
        #expect(view.width == 10 && view.height == 100)
    }

    @Test(arguments: [
        (1920, 1080, 640, 0, 640, 360), (1920, 1080, 0, 300, 532, 300), (640, 480, 1280, 0, 640, 480),
        (1080, 1080, 416, 416, 416, 416),
    ])
    func framesShrinkToTheLimitKeepingTheirShape(width: Int, height: Int, maxW: Int, maxH: Int, outW: Int, outH: Int) {
        let fitted = SubscriptionRequest(maxWidth: maxW, maxHeight: maxH).fittedSize(width: width, height: height)
        #expect(fitted.0 == outW && fitted.1 == outH)
    }

    @Test func camerasAreParsedFromTheCommandLine() throws {
        #expect(try CameraSpec("v4l2:/dev/video2") == .v4l2("/dev/video2"))
        #expect(try CameraSpec("/dev/video0") == .v4l2("/dev/video0"))
        #expect(try CameraSpec("image:/tmp/a.jpg") == .image(.init(fileURLWithPath: "/tmp/a.jpg")))
        #expect(try CameraSpec("pattern") == .pattern)
        #expect(throws: CameraError.self) { try CameraSpec("webcam") }
        #expect(throws: CameraError.self) { try CameraSpec("image:") }
    }
}
