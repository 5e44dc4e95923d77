import Foundation

/// What a test reads and types on a terminal the app runs on: spawned (`PseudoTerminal`) or in process
/// (`InProcessScreen`).
package protocol TerminalScreen: AnyObject {
    /// Everything printed so far, with the terminal's CR LF made LF.
    var text: String { get }
    /// Types `bytes` (keys as the terminal sends them).
    func type(_ bytes: [UInt8])
}

/// A new pseudo-terminal: posix_openpt(3) by hand (Glibc's module leaves it out), the multiplexer opened, unlocked
/// and asked for its number. Its master descriptor and the path of its terminal.
func openPseudoTerminal() throws -> (master: Int32, terminal: String) {
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    // TIOCSPTLCK and TIOCGPTN (linux/asm-generic/ioctls.h).
    guard master >= 0, ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0
    else {
        if master >= 0 { close(master) }
        throw CocoaError(.fileReadNoPermission)
    }
    return (master, "/dev/pts/\(number)")
}

extension TerminalScreen {
    /// The printed lines so far.
    package var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// The number a list on the screen gives `label` ("3. Settings" or "3. Speech rate: 175" → "3"), from the
    /// last line that names it; it waits up to `timeout` seconds for one, since a list is printed line by line
    /// after its prompt. Nil when none is printed in time.
    package func number(of label: String, timeout: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(timeout * ProcessRunner.timeScale)
        repeat {
            let line = lines.last { $0.hasSuffix(". \(label)") || $0.contains(". \(label):") }
            let number = line.map { $0.prefix { $0 != "." }.trimmingCharacters(in: .whitespaces) } ?? ""
            if !number.isEmpty, number.allSatisfy(\.isNumber) { return number }
            Thread.sleep(forTimeInterval: 0.02)
        } while Date() < deadline
        return nil
    }

    package func type(_ text: String) { type(Array(text.utf8)) }

    /// Types `text` one key at a time, `gap` seconds apart, as a person does ("\r" is Enter, "\u{7F}"
    /// Backspace, "\u{1B}" Escape).
    package func typeSlowly(_ text: String, gap: Double = 0.06) {
        for char in text {
            type(String(char))
            Thread.sleep(forTimeInterval: gap)
        }
    }

    /// Waits until `needle` has been printed `count` times in all; false after `timeout` seconds (scaled by
    /// `ASSIST_TEST_TIME_SCALE`).
    @discardableResult
    package func waitFor(_ needle: String, count: Int = 1, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout * ProcessRunner.timeScale)
        while Date() < deadline {
            if occurrences(of: needle) >= count { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Answers yes (typed whole), as a person does, to the `count` questions Assist's own feature `name` asks
    /// the first time it starts ("Read text asks for the camera. Allow it? Y or N."); false when one is not asked
    /// in time.
    @discardableResult
    package func allowFirstUse(_ name: String, count: Int = 1, timeout: Double = 30, answer: String = "yes\r") -> Bool {
        for asked in 1...count {
            // The question is printed as one line: its start seen, its end is there too.
            guard waitFor("\(name) asks for", count: asked, timeout: timeout) else { return false }
            // The whole word and Enter, which the answer takes (Y answers at once, and the "es" and Enter that
            // follow within 1.5 s are its own): the feature's next question hears the next key. `answer` "y"
            // for a test whose next question must not hear a word typed late by a loaded machine.
            typeSlowly(answer, gap: 0.05)
        }
        return true
    }

    /// How many times `needle` has been printed.
    package func occurrences(of needle: String) -> Int { text.components(separatedBy: needle).count - 1 }
}
