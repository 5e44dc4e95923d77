import Camera
import Foundation
import View
import ViewState

/// The camera's preview for the view's pages (docs/view.md): subscribed only while the feature in front has the
/// camera open and a visible page shows the preview, at 15 pictures a second at most and 640 × 480 at most,
/// with the page's zoom as the camera's digital zoom (a crop of the full picture, sharper than enlarging the
/// small one). Each picture goes to the pages as raw RGB (`ViewPicture`): on loopback, sending 0.9 MB costs
/// less than encoding a JPEG, and nothing in the host's process encodes pictures. Main loop.
final class ViewPreview: @unchecked Sendable {  // because: used only on the main loop
    static let owner = "assist.view"
    private let camera: CameraService
    private let hub: ViewHub
    private var subscription: UInt64?
    private var request = SubscriptionRequest(
        format: .rgb24, maxWidth: 640, maxHeight: 480, maxFramesPerSecond: 15, zoom: 1)

    init(camera: CameraService, hub: ViewHub) {
        self.camera = camera
        self.hub = hub
    }

    /// Whether a feature has the camera open (the view's own subscription aside).
    var cameraOpenByFeature: Bool {
        camera.statistics().subscribers.contains { $0.0 != Self.owner }
    }

    /// Subscribes or unsubscribes as the pages and the feature in front now need, at `zoom`.
    func follow(zoom: Double) {
        let open = cameraOpenByFeature
        hub.camera(open: open)
        let wanted = open && hub.previewWanted
        if wanted, subscription == nil {
            request.zoom = zoom
            let hub = self.hub
            subscription = try? camera.subscribe(owner: Self.owner, request: request) { frame in
                hub.picture(ViewPicture.bytes(of: frame))
            }
        } else if wanted, let subscription, request.zoom != zoom {
            request.zoom = zoom
            camera.update(subscription, request)
        } else if !wanted, let subscription {
            self.subscription = nil
            camera.unsubscribe(subscription)
        }
    }

    func stop() {
        if let subscription { camera.unsubscribe(subscription) }
        subscription = nil
    }
}

/// A camera picture as a page receives it: 8 bytes (version 1, 3 channels, width and height as little-endian
/// 16-bit numbers, two zero bytes), then the RGB rows without padding.
enum ViewPicture {
    static func bytes(of frame: Frame) -> [UInt8] {
        let rowBytes = frame.width * 3
        var bytes = [UInt8](repeating: 0, count: 8 + rowBytes * frame.height)
        bytes[0] = 1
        bytes[1] = 3
        bytes[2] = UInt8(frame.width & 0xff)
        bytes[3] = UInt8(frame.width >> 8)
        bytes[4] = UInt8(frame.height & 0xff)
        bytes[5] = UInt8(frame.height >> 8)
        bytes.withUnsafeMutableBytes { target in
            guard let base = target.baseAddress, frame.format == .rgb24 else { return }
            for row in 0..<frame.height {
                (base + 8 + row * rowBytes).copyMemory(
                    from: frame.pixels + row * frame.stride, byteCount: rowBytes)
            }
        }
        return bytes
    }
}
