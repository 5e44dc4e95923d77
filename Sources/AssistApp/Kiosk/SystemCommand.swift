import AssistCore
import Foundation
import Kiosk

/// Runs a system program, its output passed through; its exit status (127 when it cannot start).
package enum SystemCommand {
    package static func run(_ path: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        do { try process.run() } catch { return 127 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
