import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech
import Storage

/// assist.camera/1: the plugin's subscription.
package protocol CameraProviding: Sendable {
    /// Subscribes (or changes the subscription); `deliver` runs on the plugin's delivery thread. Throws
    /// `PermissionDenied` when the plugin was not given the camera, a `CameraError` when there is no camera or
    /// it cannot be opened. Main loop.
    func subscribe(_ request: SubscriptionRequest, deliver: @escaping @Sendable (Frame) -> Void) throws
    /// Ends the subscription, waiting for a delivery in progress; false when there was none. Main loop.
    @discardableResult func unsubscribe() -> Bool
    var isSubscribed: Bool { get }
    /// A device control's value and range, or nil when the camera has no such control.
    func control(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)?
    /// The plugin's delivery figures, or nil when it is not subscribed.
    func statistics() -> SubscriberStats?
}

/// The plugin's one camera subscription.
final class LocalCamera: CameraProviding, @unchecked Sendable {  // because: `subscription` is main-loop only
    let service: CameraService?
    let owner: String
    let permissions: PermissionGate
    private var subscription: UInt64?

    init(service: CameraService?, owner: String, permissions: PermissionGate) {
        self.service = service
        self.owner = owner
        self.permissions = permissions
    }

    func subscribe(_ request: SubscriptionRequest, deliver: @escaping @Sendable (Frame) -> Void) throws {
        try permissions.require(.camera)
        guard let service else { throw CameraError.missing("(none)", cause: "no camera service") }
        if let subscription {
            service.update(subscription, request)
            return
        }
        subscription = try service.subscribe(owner: owner, request: request, handler: deliver)
    }

    @discardableResult
    func unsubscribe() -> Bool {
        guard let subscription else { return false }
        self.subscription = nil
        service?.unsubscribe(subscription)
        return true
    }

    var isSubscribed: Bool { subscription != nil }

    func control(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)? {
        guard permissions.granted.contains(.camera) else { return nil }
        return service?.control(name)
    }

    func statistics() -> SubscriberStats? {
        service?.statistics().subscribers.first { $0.0 == owner }?.1
    }
}
