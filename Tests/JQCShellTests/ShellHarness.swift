import Foundation
import JQCKit
import JQCTestSupport

/// Runs the built `jqc-shell` binary (STYLE.md item 9: CLI tests run the binary and assert stdout,
/// stderr and the exit status).
struct ShellHarness {
    /// The result of one run.
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        /// stdout's lines parsed as JSON (for `--json` runs).
        var jsonLines: [JSONValue] {
            stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
        }
    }

    let dataDirectory: TemporaryDirectory

    init(dataDirectory: TemporaryDirectory = TemporaryDirectory(prefix: "jqc-shell")) {
        self.dataDirectory = dataDirectory
    }

    static var binary: URL { TestPaths.productsDirectory.appendingPathComponent("jqc-shell") }

    /// Runs `jqc-shell --data-dir <temp> ARGS…` with `stdin` fed in and closed.
    func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:], dataDir: Bool = true)
        throws -> Result
    {
        let process = TestProcess()
        process.executableURL = ShellHarness.binary
        process.arguments = (dataDir ? ["--data-dir", dataDirectory.url.path] : []) + arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.merge(environment) { _, new in new }
        process.environment = env
        // Output goes to files, so neither stream can fill a pipe and block the child.
        let scratch = TemporaryDirectory(prefix: "jqc-shell-io")
        let outFile = scratch.path("stdout"), errFile = scratch.path("stderr")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: try String(contentsOf: outFile, encoding: .utf8),
            stderr: try String(contentsOf: errFile, encoding: .utf8))
    }
}
