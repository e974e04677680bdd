import Foundation

/// A child process with line-based stdout and a writable stdin, for tests that kill or coordinate
/// with another process (storage crash tests, CLI tests).
public final class ChildProcess: @unchecked Sendable {  // because: used from one test at a time.
    /// The running process.
    public let process = TestProcess()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let stdinPipe = Pipe()
    private var buffer = Data()
    private var errorBuffer = Data()

    /// Starts `executable` with `arguments` (and `environment` merged over the current one, without the
    /// variables named in `removing`).
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], removing: [String] = []
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        for name in removing { inherited[name] = nil }
        process.environment = inherited.merging(environment) { _, new in new }
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = stdinPipe
        try process.run()
    }

    /// The next line of stdout (without the newline), or `nil` at end of output.
    public func readLine() -> String? {
        ChildProcess.nextLine(from: stdoutPipe, buffer: &buffer)
    }

    /// The next line of stderr (without the newline), or `nil` at end of output; what it read is not
    /// returned again by ``finish()``.
    public func readErrorLine() -> String? {
        ChildProcess.nextLine(from: stderrPipe, buffer: &errorBuffer)
    }

    private static func nextLine(from pipe: Pipe, buffer: inout Data) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer.append(chunk)
        }
    }

    /// Writes `text` to the child's stdin.
    public func write(_ text: String) {
        stdinPipe.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Sends `signal` (e.g. `SIGKILL`) and waits for the process to end.
    public func kill(_ signal: Int32 = SIGKILL) {
        Foundation.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    /// Waits for the process to end; returns its exit status and everything left on stdout and stderr.
    public func finish() -> (status: Int32, stdout: String, stderr: String) {
        try? stdinPipe.fileHandleForWriting.close()
        let rest = stdoutPipe.fileHandleForReading.readDataToEndOfFile()
        let errors = stderrPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: buffer + rest, as: UTF8.self),
            String(decoding: errorBuffer + errors, as: UTF8.self)
        )
    }
}
