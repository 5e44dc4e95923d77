import Foundation
import HostTesting
import Testing

/// The test process itself: a write to a program that has ended fails that test, never the whole process.
@Suite struct TestProcessTests {
    /// SIGPIPE's default action ends a process without a word (a half of `make test` once stopped mid-run so,
    /// cause not found). It is ignored before any test runs, so a broken pipe is an error a test sees.
    @Test func aWriteToAProgramThatHasEndedIsAnErrorNotTheEndOfTheTests() throws {
        #expect(ProcessRunner.ignoresBrokenPipes)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        let written = write(ends[1], "x", 1)
        let error = errno
        close(ends[1])
        #expect(written == -1 && error == EPIPE)
        // A program that reads none of a megabyte given on its standard input: its result comes back.
        let result = try ProcessRunner.run("/bin/true", [], input: String(repeating: "y\n", count: 500_000))
        #expect(result.status == 0)
    }
}
