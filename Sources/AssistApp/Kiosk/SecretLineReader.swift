import AssistCore
import Digest
import Foundation
import Interaction
import Kiosk
import PluginHost

/// Reads a line with the terminal's echo off (or a plain line from a pipe, for scripts).
package struct SecretLineReader {
    package init() {}

    package func read(prompt: String) -> String? {
        let terminal = isatty(0) == 1
        var saved = termios()
        if terminal {
            try? FileHandle.standardError.write(contentsOf: Data(prompt.utf8))
            tcgetattr(0, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        defer {
            if terminal {
                tcsetattr(0, TCSAFLUSH, &saved)
                try? FileHandle.standardError.write(contentsOf: Data("\n".utf8))
            }
        }
        return readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces)
    }
}
