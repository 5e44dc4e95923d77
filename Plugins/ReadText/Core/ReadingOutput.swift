import Foundation
import PluginKit

/// Where one recognition's results go: to the main loop at once, or, for a picture recognised before the
/// stability wait chose it (an early read, issue 37), held until the wait ends on the same still picture and
/// then sent in order, or dropped when the camera moved first. The worker posts; the camera thread confirms or
/// drops. A dropped recognition stops at its next chunk.
final class ReadingOutput: @unchecked Sendable {  // because: `state`, `held` and `outcome` are used under `lock`
    enum State: Equatable {
        case open, holding, dropped
    }

    private let host: PluginHostHandle
    private let lock = NSLock()
    private var state: State
    private var held: [() -> Void] = []
    /// An early read's result once recognised (false: vetoed, another picture is wanted), until confirmed.
    private var outcome: Bool?
    /// What to do with an early read's result once it is both known and confirmed (main loop).
    private let settle: ((Bool) -> Void)?

    /// Results go to the main loop as they come.
    init(host: PluginHostHandle) {
        self.host = host
        state = .open
        settle = nil
    }

    /// An early read: results are held; `settle` gets the recognition's result on the main loop once it is
    /// known and the read confirmed.
    init(host: PluginHostHandle, holdingUntilConfirmed settle: @escaping (Bool) -> Void) {
        self.host = host
        state = .holding
        self.settle = settle
    }

    var isDropped: Bool { lock.withLock { state == .dropped } }

    /// Runs `body` on the main loop now, or when confirmed; never once dropped.
    func post(_ body: @escaping () -> Void) {
        lock.withLock {
            switch state {
            case .open: host.onMain(body)
            case .holding: held.append(body)
            case .dropped: break
            }
        }
    }

    /// The stability wait ended on the picture read early: what was held goes out, in order, and what comes
    /// later goes at once. False when it was dropped already.
    @discardableResult
    func confirm() -> Bool {
        lock.withLock {
            guard state == .holding else { return state == .open }
            state = .open
            // Posted under the lock so that nothing the worker posts meanwhile overtakes what was held.
            for body in held { host.onMain(body) }
            held = []
            if let outcome, let settle { host.onMain { settle(outcome) } }
            return true
        }
    }

    /// The camera moved (or the picture was not sharp enough to start early): nothing held is said. Returns the
    /// state it was in: `.open` when the read was confirmed first (the wait chose this very picture), and then
    /// nothing changes.
    @discardableResult
    func drop() -> State {
        lock.withLock {
            let was = state
            if state == .holding {
                state = .dropped
                held = []
            }
            return was
        }
    }

    /// The recognition ended with `accepted` (false: vetoed); settled now if confirmed, else when confirmed.
    func finish(accepted: Bool) {
        lock.withLock {
            switch state {
            case .open: if let settle { host.onMain { settle(accepted) } }
            case .holding: outcome = accepted
            case .dropped: break
            }
        }
    }
}
