/// Where plain output lines go: standard output for people and screen readers, a buffer in tests.
package protocol LineOutput: Sendable {
    /// Writes one line of plain text. Any thread.
    func writeLine(_ line: String)
    /// Writes one line of data (a transcript, a command's rows), whose tabs part its fields and are kept.
    /// Any thread.
    func writeRow(_ line: String)
}

extension LineOutput {
    package func writeRow(_ line: String) { writeLine(line) }
}
