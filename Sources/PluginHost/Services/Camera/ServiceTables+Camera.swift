import Camera
import Foundation
import PluginABI
import PluginAPI

extension ServiceTables {
    // MARK: assist.camera/1

    nonisolated(unsafe) static let cameraTable: UnsafeMutablePointer<assist_camera_service> = {
        var table = assist_camera_service()
        table.struct_size = UInt32(MemoryLayout<assist_camera_service>.size)
        table.subscribe = { host, request, err in
            guard let context = PluginContext.from(host), context.onMain("camera.subscribe") else {
                return ASSIST_E_INVALID
            }
            guard let request = assist_camera_request.read(request), let wanted = subscriptionRequest(request) else {
                context.misbehaving("camera.subscribe: the request is NULL, smaller than ABI 1.0's or out of range")
                return ASSIST_E_INVALID
            }
            do {
                try context.subscribeCamera(wanted)
                return ASSIST_OK
            } catch let error as PermissionDenied {
                return denied(error, err)
            } catch {
                let message = (error as? CameraError)?.message ?? "The camera cannot be opened."
                err?.pointee = strdup(message)
                context.logger.warning("camera.subscribe: \(message)")
                return ASSIST_E_IO
            }
        }
        table.unsubscribe = { host in
            guard let context = PluginContext.from(host), context.onMain("camera.unsubscribe") else {
                return ASSIST_E_INVALID
            }
            guard context.services.camera.isSubscribed else { return ASSIST_E_NOT_FOUND }
            context.endCameraSubscription()
            return ASSIST_OK
        }
        table.retain = { host, frame in
            guard let context = PluginContext.from(host), let frame else { return nil }
            return context.retainFrame(frame)
        }
        table.release = { host, frame in
            guard let context = PluginContext.from(host), let frame else { return }
            if !context.releaseFrame(frame) { context.misbehaving("camera.release of a frame that was not retained") }
        }
        table.control = { host, name, value, minimum, maximum in
            guard let context = PluginContext.from(host), let name, let value, let minimum, let maximum else {
                return ASSIST_E_INVALID
            }
            guard let reading = context.services.camera.control(String(cString: name)) else {
                return ASSIST_E_UNSUPPORTED
            }
            value.pointee = reading.value
            minimum.pointee = reading.minimum
            maximum.pointee = reading.maximum
            return ASSIST_OK
        }
        table.stats = { host, out in
            guard let context = PluginContext.from(host), let out else { return ASSIST_E_INVALID }
            guard let stats = context.services.camera.statistics() else { return ASSIST_E_NOT_FOUND }
            var result = assist_camera_stats()
            result.struct_size = UInt32(MemoryLayout<assist_camera_stats>.size)
            result.delivered = UInt64(stats.delivered)
            result.dropped = UInt64(stats.dropped)
            result.skipped = UInt64(stats.skipped)
            result.converted = UInt64(stats.converted)
            return assist_camera_stats.write(result, to: out) ? ASSIST_OK : ASSIST_E_INVALID
        }
        return allocate(table)
    }()

    /// The Swift request for a C one; nil when a field is out of range.
    static func subscriptionRequest(_ request: assist_camera_request) -> SubscriptionRequest? {
        let format = request.fourcc == 0 ? .bgr24 : PixelFormat(rawValue: request.fourcc)
        let zoom = request.zoom == 0 ? 1 : request.zoom
        guard let format, request.max_fps >= 0, request.max_fps.isFinite, zoom >= 1, zoom <= 8 else { return nil }
        return SubscriptionRequest(
            format: format, maxWidth: Int(request.max_width), maxHeight: Int(request.max_height),
            maxFramesPerSecond: request.max_fps, zoom: zoom, square: request.flags & ASSIST_CAMERA_SQUARE != 0)
    }
}
