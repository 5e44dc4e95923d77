import Foundation

/// Reads a pipe's read end on a thread of its own until every writer has closed it, handing each chunk to
/// `take`: a blocking read. Never `FileHandle.readabilityHandler`: that installs a libdispatch read source, and
/// tearing one down while other threads of the process open and close descriptors (a test process, with sessions
/// running in it) can leave a freed epoll entry that libdispatch's manager thread then reads, ending the whole
/// process with SIGSEGV in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949; a rehearsal's test
/// half crashed so on 2026-12-05, beside the survey's kill -9 suite, which used one). A blocking read registers
/// nothing with libdispatch.
package final class PipeDrain: Sendable {
    private let ended = DispatchSemaphore(value: 0)

    /// Starts reading `handle`; the thread keeps it open until the end is read.
    package init(_ handle: FileHandle, take: @escaping @Sendable (Data) -> Void) {
        let ended = ended
        Thread {
            while case let chunk = handle.availableData, !chunk.isEmpty { take(chunk) }
            ended.signal()
        }.start()
    }

    /// Waits up to `seconds` for the end of the pipe; whether it came.
    @discardableResult
    package func waitForEnd(seconds: Double) -> Bool { ended.wait(timeout: .now() + seconds) == .success }
}
