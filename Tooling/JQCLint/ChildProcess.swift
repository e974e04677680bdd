import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to its end with `posix_spawnp` and returns what it printed.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3.1) crashes intermittently while it scans `/proc/self/fd`
/// (swift-corelibs-foundation PR #5472), so the linter starts `swift package dump-package` itself. Standard
/// output and error go to two temporary files, read once the child has exited, so no pipe can fill up and
/// block the child; standard input is `/dev/null`, every other descriptor is closed in the child, and the child
/// starts with no signal blocked or ignored.
enum ChildProcess {
    /// How a child ended and what it printed.
    struct Outcome {
        /// The exit status (128 + the signal when a signal ended it).
        let status: Int32
        /// Everything it wrote to standard output.
        let output: Data
        /// Everything it wrote to standard error.
        let errors: Data
    }

    /// Runs `program` (looked up on PATH when it has no `/`) with `arguments` and waits for it.
    /// - Parameters:
    ///   - program: the program's name or path (`swift`).
    ///   - arguments: its arguments, without the program name.
    /// - Returns: its exit status and output.
    /// - Throws: `POSIXError` when the temporary files cannot be made or the program cannot be started (`ENOENT`
    ///   when it is not on PATH).
    static func run(_ program: String, _ arguments: [String]) throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory
        let stem = "jqc-lint-\(getpid())-\(UUID().uuidString)"
        let outputPath = folder.appendingPathComponent(stem + ".out").path
        let errorsPath = folder.appendingPathComponent(stem + ".err").path
        defer {
            unlink(outputPath)
            unlink(errorsPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        closeFrom3(&actions)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // The child starts with no signal blocked and every signal at its default action, whatever the thread
        // that spawns it had blocked or ignored.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let started = posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
        guard started == 0 else { throw POSIXError(POSIXErrorCode(rawValue: started) ?? .EIO) }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG by hand (the macros do not import).
        let signal = raw & 0x7f
        let status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        return Outcome(
            status: status, output: FileManager.default.contents(atPath: outputPath) ?? Data(),
            errors: FileManager.default.contents(atPath: errorsPath) ?? Data())
    }

    /// Closes every descriptor from 3 up in the child with glibc's `posix_spawn_file_actions_addclosefrom_np`
    /// (2.34 and later; looked up at run time because Swift does not see its declaration). Without it the
    /// child merely inherits descriptors it never uses.
    private static func closeFrom3(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        _ = closeFrom(&actions, 3)
    }
}
