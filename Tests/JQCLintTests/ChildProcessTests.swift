import Foundation
import Testing

@testable import JQCLint

@Suite("jqc-lint starts swift with posix_spawn and reads all it prints")
struct ChildProcessTests {
    @Test("the status, standard output and standard error of a child are returned, even past a pipe's capacity")
    func outcome() throws {
        let outcome = try ChildProcess.run(
            "sh", ["-c", "head -c 200000 /dev/zero; printf 'to stderr' >&2; exit 3"])
        #expect(outcome.status == 3)
        #expect(outcome.output.count == 200_000)
        #expect(String(decoding: outcome.errors, as: UTF8.self) == "to stderr")
    }

    @Test("a program that is not on PATH is refused with ENOENT")
    func missingProgram() {
        #expect(throws: POSIXError(.ENOENT)) {
            try ChildProcess.run("jqc-no-such-program", [])
        }
    }

    @Test("a child killed by a signal reports 128 plus the signal")
    func signalled() throws {
        let outcome = try ChildProcess.run("sh", ["-c", "kill -TERM $$"])
        #expect(outcome.status == 128 + 15)
    }
}
