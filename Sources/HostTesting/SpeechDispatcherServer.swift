import Foundation

/// A private Speech Dispatcher for tests: its own config (sound to ALSA's null device, since these machines
/// have no sound card), socket and pid file, so it never meets the user's own server.
package final class SpeechDispatcherServer {
    private let process = Process()
    /// The value for `SPEECHD_ADDRESS`.
    package let address: String

    /// Starts `speech-dispatcher` in `folder` and waits for its socket.
    package init(folder: TemporaryDirectory) throws {
        let config = folder.path("speechd")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: "/etc/speech-dispatcher"), to: config)
        let file = config.appendingPathComponent("speechd.conf")
        var text = try String(contentsOf: file, encoding: .utf8)
        text += "\nAudioOutputMethod \"alsa\"\nAudioALSADevice \"null\"\n"
        try text.write(to: file, atomically: false, encoding: .utf8)
        let socket = folder.path("speechd.sock")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/speech-dispatcher")
        process.arguments = [
            "-s", "-C", config.path, "-S", socket.path, "-P", folder.path("speechd.pid").path, "-t", "60",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket.path) { usleep(50_000) }
        address = "unix_socket:\(socket.path)"
    }

    /// Ends the server and waits for it (SIGKILL after 3 s): one left running outlives the test by its minute of
    /// idle time, its modules with it.
    deinit {
        process.terminate()
        let deadline = Date(timeIntervalSinceNow: 3)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
