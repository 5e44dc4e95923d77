import Foundation
import HostTesting
import Runtime
import Testing

/// The host under systemd with `Type=notify` and `WatchdogSec=`: what it writes to `NOTIFY_SOCKET`, read
/// by a datagram socket the test binds, as systemd's own would be.
@Suite("systemd notifications")
struct ServiceNotifyTests {
    let folder: TemporaryDirectory
    let socketPath: String

    init() throws {
        folder = try TemporaryDirectory("assist-notify")
        socketPath = folder.path("notify").path
    }

    /// Runs `body` with a bound datagram socket at `socketPath`, then returns what arrived and when.
    func listening(_ body: () throws -> Void) throws -> [NotifyDatagram] {
        let listener = try NotifyListener(path: socketPath)
        try body()
        return listener.finish()
    }

    @Test func theShellSaysReadyPingsTheWatchdogFromItsLoopAndSaysStopping() throws {
        let received = try listening {
            let run = try ProcessRunner.typing(
                BuildProducts.assist, ["shell", "--no-speech", "--data-dir", folder.path("data").path],
                lines: [ProcessRunner.TypedLine("quit", after: 2 * ProcessRunner.timeScale)],
                environment: ["NOTIFY_SOCKET": socketPath, "WATCHDOG_USEC": "200000"])
            #expect(run.endedByItself)
        }
        let ready = try #require(received.firstIndex { $0.lines.contains("READY=1") }, "\(received)")
        #expect(received[ready].lines.contains("STATUS=Ready."), "\(received)")
        #expect(received[ready].lines.contains { $0.hasPrefix("MAINPID=") })
        #expect(received.filter { $0.lines.contains("READY=1") }.count == 1)
        let pings = received.filter { $0.lines == ["WATCHDOG=1"] }
        // Every 100 ms (half of WATCHDOG_USEC) for about 2 s.
        #expect(pings.count >= 8, "\(received.map(\.lines))")
        #expect(received.last?.lines == ["STOPPING=1", "STATUS=Stopping."], "\(received.map(\.lines))")
        #expect(received.allSatisfy { !$0.lines.isEmpty && $0.lines.allSatisfy { $0.contains("=") } })
    }

    @Test func aBlockedMainLoopStopsThePings() throws {
        let plugins = try TemporaryDirectory("assist-notify-plugins")
        try CPluginBuilder(root: plugins.url).build(
            folder: "hang", defines: ["START_BLOCKS_MS=2500", #"PLUGIN_ID="org.example.hang""#],
            manifest: CPluginBuilder.manifest(id: "org.example.hang"))
        // The plugin's start sleeps 2.5 s on the main thread, then asks its question, answered 1.5 s later.
        let received = try listening {
            let run = try ProcessRunner.typing(
                BuildProducts.assist,
                [
                    "run", "--no-speech", "--data-dir", folder.path("data").path, "--plugin-dir", plugins.url.path,
                    "org.example.hang",
                ], lines: [ProcessRunner.TypedLine("1", after: 4 * ProcessRunner.timeScale)],
                environment: ["NOTIFY_SOCKET": socketPath, "WATCHDOG_USEC": "200000"])
            #expect(run.endedByItself, "\(run.output)")
        }
        let pings = received.filter { $0.lines == ["WATCHDOG=1"] }.map(\.time)
        let gaps = zip(pings, pings.dropFirst()).map { $1 - $0 }
        // systemd would have restarted a host whose loop stood still for 2.5 s with WatchdogSec=0.2s.
        #expect((gaps.max() ?? 0) >= 2.0, "the pings went on while the loop was blocked: \(gaps)")
        #expect(gaps.filter { $0 < 0.5 }.count >= 5, "and came back once it turned again: \(gaps)")
        #expect(received.first?.lines.contains("READY=1") == true)
    }

    @Test func anAbstractSocketIsReachedAndANameTooLongIsRefused() throws {
        let name = "@assist-notify-\(UUID().uuidString)"
        let listener = try NotifyListener(path: name)
        let notifier = try #require(ServiceNotifier(socketPath: name))
        #expect(notifier.send(["STATUS=two\nlines"]))
        #expect(listener.finish().map(\.lines) == [["STATUS=two lines"]], "a newline inside a value is a space")
        #expect(ServiceNotifier(socketPath: "/" + String(repeating: "x", count: 108)) == nil)
        #expect(ServiceNotifier(socketPath: "@" + String(repeating: "x", count: 107)) != nil)
    }

    @Test func noSocketMeansNothingIsSentAndChildrenInheritNothing() throws {
        // Without NOTIFY_SOCKET the host runs as ever (and sends nowhere); with one it takes the variables
        // out of its environment, so the programs it starts cannot speak for it.
        let plain = try ProcessRunner.run(
            BuildProducts.assist, ["shell", "--no-speech", "--data-dir", folder.path("data").path], input: "quit\n")
        #expect(plain.status == 0)
        let bad = try ProcessRunner.run(
            BuildProducts.assist, ["shell", "--no-speech", "--data-dir", folder.path("data").path], input: "quit\n",
            environment: ["NOTIFY_SOCKET": "relative/path", "WATCHDOG_USEC": "nonsense"])
        #expect(bad.status == 0, "\(bad.standardError)")
    }
}

/// One datagram: its lines and when it came (seconds on the monotonic clock).
struct NotifyDatagram: CustomStringConvertible {
    var lines: [String]
    var time: Double
    var description: String { "\(String(format: "%.2f", time)) \(lines)" }
}

/// A datagram socket bound at a path, read on its own thread until `finish`.
final class NotifyListener: @unchecked Sendable {  // because: `received` is guarded by `lock`
    private let descriptor: Int32
    private let lock = NSLock()
    private var received: [NotifyDatagram] = []
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0, let address = UnixSocketAddress(path) else {
            throw CocoaError(.fileWriteInvalidFileName)
        }
        guard address.withSockaddr({ bind(descriptor, $0, $1) }) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in read() }
        self.thread = thread
        thread.start()
    }

    private var stopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished
    }
    private var finished = false

    private func read() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let text = String(decoding: buffer.prefix(count), as: UTF8.self)
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let datagram = NotifyDatagram(
                lines: text.split(separator: "\n").map(String.init),
                time: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
            lock.lock()
            received.append(datagram)
            lock.unlock()
        }
        done.signal()
    }

    /// Stops reading (after what is already queued) and returns every datagram in order.
    func finish() -> [NotifyDatagram] {
        usleep(200_000)
        lock.lock()
        finished = true
        lock.unlock()
        done.wait()
        close(descriptor)
        lock.lock()
        defer { lock.unlock() }
        return received
    }
}
