import AssistCore
import Foundation
import PluginHost
import Voice

/// Runs `assist _probe` in a child process and reads its verdict.
package enum ChildProbe {
    package enum Outcome {
        case passed(String)
        case failed(String)
        case crashed(String)
    }

    /// The exit status of a probe whose plugin crashed its helper process: the line it printed says how.
    package static let crashStatus: Int32 = 2

    package static func run(arguments: [String], timeoutSeconds: Double) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let last = text.split(separator: "\n").last.map(String.init) ?? ""
        if timedOut { return .crashed("it did not finish loading within \(Int(timeoutSeconds)) s and was killed") }
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            let name = String(cString: strsignal(signal))
            return .crashed("signal \(signal) (\(name)) while loading; the plugin's init or load code is faulty")
        }
        switch process.terminationStatus {
        case 0: return .passed(last)
        case crashStatus: return .crashed(last)
        default: return .failed(last)
        }
    }
}
