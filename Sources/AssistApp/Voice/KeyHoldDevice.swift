import Foundation
import Interaction

#if canImport(Glibc)
    import Glibc
#endif

/// Push-to-talk held down: a Linux input device (`voice.key-device`, such as
/// `/dev/input/by-id/usb-...-event-kbd`) read through evdev on a thread of its own, where a terminal shows only
/// key presses, never how long a key is held. While `voice.key` is down, voice listens; when it comes up, the
/// phrase being said is finished. Reading needs the `input` group (or an admin's udev rule); without it, one
/// sentence says so and the key still opens a window through the terminal.
package final class KeyHoldDevice: @unchecked Sendable {  // because: `running` is under `lock`
    /// The kernel's key codes (linux/input-event-codes.h) for the keys `voice.key` may name.
    package static func code(for key: Key) -> UInt16? {
        switch key {
        case .function(let number) where (1...10).contains(number): return UInt16(58 + number)  // KEY_F1 = 59
        case .function(11): return 87
        case .function(12): return 88
        case .space: return 57
        case .enter: return 28
        case .escape: return 1
        case .tab: return 15
        default: return nil
        }
    }

    /// `struct input_event` on 64-bit Linux: a timeval (16 bytes), type, code (2 each), value (4).
    package static let eventSize = 24
    package static let keyEvent: UInt16 = 1  // EV_KEY

    private let path: String
    private let code: UInt16
    private let changed: @Sendable (Bool) -> Void
    private let lock = NSLock()
    private var running = true

    /// Reads `path` for presses and releases of `code`; `changed(true)` as it goes down, `changed(false)` as it
    /// comes up (repeats are ignored). Throws the sentence to say when the device cannot be opened.
    package init(path: String, code: UInt16, changed: @escaping @Sendable (Bool) -> Void) throws(KeyHoldError) {
        self.path = path
        self.code = code
        self.changed = changed
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let why = String(cString: strerror(errno))
            throw KeyHoldError(
                message:
                    "The push-to-talk key device \(path) cannot be read (\(why)): add the user to the input group, or set voice.key-device to the keyboard's event device. The key still opens a window for 5 seconds."
            )
        }
        let thread = Thread { [self] in read(descriptor) }
        thread.name = "assist-voice-key"
        thread.start()
    }

    package func stop() { lock.withLock { running = false } }

    private var isRunning: Bool { lock.withLock { running } }

    private func read(_ descriptor: Int32) {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: Self.eventSize * 16)
        var pending: [UInt8] = []
        var down = false
        while isRunning {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            // The device went away (unplugged) or the file ended: a key held is let go.
            guard count > 0 else { break }
            pending += buffer[0..<count]
            while pending.count >= Self.eventSize {
                let event = Array(pending[0..<Self.eventSize])
                pending.removeFirst(Self.eventSize)
                let type = UInt16(event[16]) | UInt16(event[17]) << 8
                let key = UInt16(event[18]) | UInt16(event[19]) << 8
                let value = Int32(
                    bitPattern: UInt32(event[20]) | UInt32(event[21]) << 8 | UInt32(event[22]) << 16
                        | UInt32(event[23]) << 24)
                // 1 pressed, 0 released, 2 held (repeat).
                guard type == Self.keyEvent, key == code, value == 0 || value == 1 else { continue }
                if (value == 1) != down {
                    down = value == 1
                    changed(down)
                }
            }
        }
        if down { changed(false) }
    }
}

/// Why the push-to-talk key device cannot be read, as one sentence.
package struct KeyHoldError: Error {
    package var message: String
}
