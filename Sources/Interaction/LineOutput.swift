/// Where plain output lines go: standard output for people and screen readers, a buffer in tests.
package protocol LineOutput: Sendable {
    /// Writes one line of plain text. Any thread.
    func writeLine(_ line: String)
}
