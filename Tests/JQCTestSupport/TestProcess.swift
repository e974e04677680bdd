import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, with the small part of `Foundation.Process`'s surface the
/// tests use. Foundation's `Process.run()` on Linux (Swift 6.3.1) crashes intermittently — a 256-byte
/// over-read while it scans `/proc/self/fd` (swift-corelibs-foundation PR #5472) — about one full run of
/// this suite in ten, so no test launches through it.
///
/// The child gets only its three standard streams: every other descriptor (another test's pipe ends,
/// sockets) is closed in the child, so a reader always sees end-of-file when its own child exits.
public final class TestProcess: @unchecked Sendable {  // because: configured before run(), then only read.
    /// The program to run.
    public var executableURL: URL?
    /// Its arguments (without the program name).
    public var arguments: [String] = []
    /// Its whole environment; `nil` = this process's.
    public var environment: [String: String]?
    /// Standard input: a `Pipe` (the child reads its read end) or a `FileHandle`; `nil` = /dev/null.
    public var standardInput: Any?
    /// Standard output: a `Pipe` (the child writes its write end) or a `FileHandle`; `nil` = /dev/null.
    public var standardOutput: Any?
    /// Standard error: a `Pipe` or a `FileHandle`, like ``standardOutput``; `nil` = /dev/null.
    public var standardError: Any?

    /// The child's process id once started (0 before).
    public private(set) var processIdentifier: pid_t = 0
    private var status: Int32?
    private var terminatingSignal: Int32 = 0

    /// A process not started yet: set ``executableURL`` and the rest, then call ``run()``.
    public init() {}

    /// Starts the child.
    /// - Throws: `POSIXError` when it cannot be spawned.
    public func run() throws {
        guard let path = executableURL?.path else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case let pipe as Pipe:
                let end = target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        TestProcess.closeFrom3(&actions)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in env { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, env)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        processIdentifier = pid
        // The parent's copies of the child's pipe ends are closed, so end-of-file arrives when the child exits.
        if let pipe = standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        if let pipe = standardOutput as? Pipe { try? pipe.fileHandleForWriting.close() }
        if let pipe = standardError as? Pipe { try? pipe.fileHandleForWriting.close() }
    }

    /// Waits for the child to end.
    public func waitUntilExit() {
        guard status == nil, processIdentifier > 0 else { return }
        var raw: Int32 = 0
        while waitpid(processIdentifier, &raw, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG by hand (the macros do not import).
        let signal = raw & 0x7f
        terminatingSignal = signal
        status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    /// The exit status (128 + signal when killed by one); valid after ``waitUntilExit()``.
    public var terminationStatus: Int32 { status ?? -1 }

    /// Whether the child ended by a signal (a crash or a kill) rather than by exiting; valid after
    /// ``waitUntilExit()``.
    public var endedBySignal: Bool { terminatingSignal != 0 }

    /// The child's peak resident set size so far in KiB, `VmHWM` of `/proc/PID/status`, while it runs; `nil`
    /// once it has exited (or before it started). `wait4`'s `ru_maxrss` is no substitute: with
    /// `posix_spawn`'s shared-memory start it includes this (parent) process's size.
    public var currentPeakResidentKilobytes: Int? {
        guard processIdentifier > 0, status == nil,
            let text = try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8)
        else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst("VmHWM:".count).filter(\.isNumber))
        }
        return nil
    }

    /// Closes every descriptor from 3 up in the child, with glibc's `posix_spawn_file_actions_addclosefrom_np`
    /// (2.34 and later; looked up at run time because Swift does not see its declaration).
    private static func closeFrom3(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        _ = closeFrom(&actions, 3)
    }
}
