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

/// The main loop and the worker pool (assist.worker/1, assist.thread-check/1).
package protocol LoopProviding: Sendable {
    /// True on the host's main loop. Any thread.
    var isOnMain: Bool { get }
    /// Runs `work` on the main loop, in order. Any thread.
    func post(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` on a worker thread. Any thread.
    func runOnWorker(_ work: @escaping @Sendable () -> Void)
}

struct LocalLoop: LoopProviding {
    let loop: MainLoop
    let workers: WorkerPool

    var isOnMain: Bool { loop.isOnLoop }
    func post(_ work: @escaping @Sendable () -> Void) { loop.post(work) }
    func runOnWorker(_ work: @escaping @Sendable () -> Void) { workers.schedule(work) }
}
