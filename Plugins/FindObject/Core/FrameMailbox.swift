import Foundation
import PluginAPI
import PluginKit

/// The spec's single-slot mailbox (find-object.md §3): the frame callback only retains the newest frame here
/// (a newer one replaces and releases the older), and a thread of the plugin's own runs the search on it, so
/// the host's frame thread is never held. At most two frames are retained: one waiting, one being searched.
/// After a back-off delay the waiting frame is dropped (find-object.md §3).
// because: `slot`, `running` and `busy` are guarded by `condition`
final class FrameMailbox: @unchecked Sendable {
    private let host: PluginHostHandle
    private let condition = NSCondition()
    private var slot: UnsafePointer<assist_frame>?
    private var running = true
    private var busy = false
    private(set) var replaced = 0

    init(host: PluginHostHandle, name: String, process: @escaping @Sendable (assist_frame) -> Double) {
        self.host = host
        let thread = Thread { [self] in loop(process) }
        thread.name = name
        thread.start()
    }

    /// Keeps `frame` for the search thread. [frame thread]
    func offer(_ frame: UnsafePointer<assist_frame>) {
        guard let kept = host.retainFrame(frame) else { return }
        let older: UnsafePointer<assist_frame>? = condition.withLock {
            guard running else { return kept }
            let older = slot
            slot = kept
            if older != nil { replaced += 1 }
            condition.signal()
            return older
        }
        if let older { host.releaseFrame(older) }
    }

    /// Ends the thread after the frame being searched; a waiting frame is released. Any thread.
    func stop() {
        let waiting: UnsafePointer<assist_frame>? = condition.withLock {
            running = false
            defer { slot = nil }
            condition.signal()
            return slot
        }
        if let waiting { host.releaseFrame(waiting) }
    }

    /// Searches each newest frame; `process` returns a back-off delay, and frames that arrive during it are
    /// dropped, so the next search starts on a frame captured after it.
    private func loop(_ process: (assist_frame) -> Double) {
        while true {
            condition.lock()
            while running && slot == nil { condition.wait() }
            guard running, let frame = slot else {
                condition.unlock()
                return
            }
            slot = nil
            condition.unlock()
            let delay = process(frame.pointee)
            host.releaseFrame(frame)
            guard delay > 0 else { continue }
            usleep(UInt32(delay * 1_000))
            let stale: UnsafePointer<assist_frame>? = condition.withLock {
                defer { slot = nil }
                return slot
            }
            if let stale { host.releaseFrame(stale) }
        }
    }
}
