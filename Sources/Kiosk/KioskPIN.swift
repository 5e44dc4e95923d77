import AssistCore
import Digest
import Foundation
import Interaction

/// The admin PIN: kept as a salted hash in a file only root reads (0600), which the kiosk's unit hands to
/// the service as a systemd credential (`LoadCredential=kiosk-pin:…`), so the kiosk user never reads the
/// file itself.
package enum KioskPIN {
    /// 4 to 12 digits: typed on any keyboard, a tap for each.
    package static let lengths = 4...12

    /// Why `pin` cannot be the admin PIN, or nil.
    package static func problem(with pin: String) -> String? {
        guard pin.allSatisfy({ $0.isASCII && $0.isNumber }) else { return "the PIN must be digits only" }
        guard lengths.contains(pin.count) else {
            return "the PIN must have \(lengths.lowerBound) to \(lengths.upperBound) digits"
        }
        guard Set(pin).count > 1 else { return "the PIN must not be one digit repeated" }
        return nil
    }

    /// Where the PIN hash is read from: the credential systemd passed the service, else `file`.
    package static func source(for file: URL, environment: [String: String]) -> URL {
        if let folder = environment["CREDENTIALS_DIRECTORY"], !folder.isEmpty {
            let credential = URL(fileURLWithPath: folder).appendingPathComponent("kiosk-pin")
            if FileManager.default.fileExists(atPath: credential.path) { return credential }
        }
        return file
    }

    /// The PIN hash, or the one problem that keeps the kiosk from using it (always blocking).
    package static func load(from file: URL, environment: [String: String]) -> Result<PasswordHash, KioskProblem> {
        let url = source(for: file, environment: environment)
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            if errno == EACCES {
                return .failure(
                    KioskProblem(
                        "the PIN file \(url.path) cannot be read by this user; the kiosk's unit passes it with LoadCredential=",
                        blocking: true))
            }
            return .failure(
                KioskProblem(
                    "no admin PIN is set (\(url.path) does not exist): run sudo assist kiosk set-pin", blocking: true))
        }
        if info.st_mode & 0o077 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            return .failure(
                KioskProblem(
                    "the PIN file \(url.path) is readable by others (mode \(mode)): run sudo chmod 600 \(url.path)",
                    blocking: true))
        }
        if info.st_uid != 0 && info.st_uid != geteuid() {
            return .failure(
                KioskProblem(
                    "the PIN file \(url.path) belongs to user \(info.st_uid), not root: run sudo assist kiosk set-pin again",
                    blocking: true))
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return .failure(
                KioskProblem(
                    "the PIN file \(url.path) cannot be read by this user; the kiosk's unit passes it with LoadCredential=",
                    blocking: true))
        }
        guard let hash = PasswordHash(line: String(decoding: data, as: UTF8.self)) else {
            return .failure(
                KioskProblem(
                    "the PIN file \(url.path) does not hold a PIN hash: run sudo assist kiosk set-pin again",
                    blocking: true))
        }
        return .success(hash)
    }

    /// Writes `hash` to `file` (0600, atomically; its folder is made 0755 if missing).
    package static func write(_ hash: PasswordHash, to file: URL) throws {
        let folder = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try PrivateFile.write(Data((hash.line + "\n").utf8), to: file)
    }
}

/// Wrong PINs wait 1, 2, 4 … 60 s before the next try, kept in `<data>/kiosk-backoff.json` (0600) so a
/// restart does not reset them; a right PIN clears them.
package struct PINBackoff: Codable, Equatable, Sendable {
    package var failures = 0
    /// Seconds since 1970 before which no PIN is taken.
    package var until = 0.0

    package init() {}

    /// The wait after `failures` wrong PINs.
    package static func wait(afterFailures failures: Int) -> Double {
        failures <= 0 ? 0 : min(60, pow(2, Double(min(failures, 7) - 1)))
    }

    /// Seconds left to wait at `now`, rounded up; 0 when a PIN may be tried.
    package func remaining(at now: Double) -> Int { until > now ? Int((until - now).rounded(.up)) : 0 }

    /// Counts a wrong PIN at `now`; returns the seconds to wait.
    package mutating func fail(at now: Double) -> Double {
        failures += 1
        let wait = Self.wait(afterFailures: failures)
        until = now + wait
        return wait
    }

    package static func load(from file: URL) -> PINBackoff {
        guard let data = FileManager.default.contents(atPath: file.path),
            let state = try? JSONDecoder().decode(PINBackoff.self, from: data)
        else { return PINBackoff() }
        return state
    }

    package func save(to file: URL) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        try? PrivateFile.write(data, to: file)
    }
}

/// The admin gesture: `key` pressed `presses` times within `seconds`. Any other key in between starts the
/// count again, so typing never adds up to it.
package struct AdminGesture: Sendable {
    package let key: Key
    package let presses: Int
    package let seconds: Double
    private var times: [Double] = []

    package init(key: Key, presses: Int, seconds: Double) {
        self.key = key
        self.presses = presses
        self.seconds = seconds
    }

    /// Starts counting again, as any other key does.
    package mutating func reset() { times = [] }

    /// Counts a key pressed at `time`; true when it completes the gesture.
    package mutating func press(_ pressed: Key, at time: Double) -> Bool {
        guard pressed == key else {
            times = []
            return false
        }
        times.append(time)
        times.removeAll { time - $0 > seconds }
        guard times.count >= presses else { return false }
        times = []
        return true
    }
}
