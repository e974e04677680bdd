import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a benchmark could not run: a sentence a person can act on (the tool's one error type).
struct BenchError: Error, CustomStringConvertible {
    /// A stable code (`bench.<kind>`).
    let code: String
    /// What went wrong and what to do.
    let message: String

    init(_ kind: String, _ message: String) {
        code = "bench.\(kind)"
        self.message = message
    }

    var description: String { message }
}

/// Progress lines go to stderr so stdout holds only the table rows.
func note(_ line: String) {
    FileHandle.standardError.write(Data("jqc-bench: \(line)\n".utf8))
}

/// A monotonic stopwatch in seconds.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// A monotonic stopwatch in seconds for async work.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Summary statistics over samples (seconds).
struct Samples {
    private(set) var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }

    /// The nearest-rank percentile (`p` in 0…100).
    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var median: Double { percentile(50) }
    var minimum: Double { values.min() ?? .nan }
    var total: Double { values.reduce(0, +) }
}

/// The result of a child process.
struct ProcessResult {
    let status: Int32
    let stdout: Data
    let stderr: String
    let elapsed: Double
}

/// Runs child processes with `posix_spawn` and `waitpid`, timed from spawn to exit. (Foundation's
/// `Process.waitUntilExit` polls its run loop every 50 ms on Linux, which would quantise every timing.)
enum Child {
    /// Where `name` is on `PATH`, or `nil`.
    static func which(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Where a child's standard stream goes.
    enum Stream {
        case null
        case file(String)
        case descriptor(Int32)
    }

    /// Starts `argv` (absolute path first) with its streams redirected; `close` lists descriptors the child
    /// must not inherit (the other ends of pipes).
    /// - Throws: ``BenchError`` when it cannot start.
    static func spawn(
        _ argv: [String], stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null,
        close: [Int32] = []
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(
                    &actions, target, path, target == 0 ? O_RDONLY : (O_WRONLY | O_CREAT | O_TRUNC), 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        for fd in close { posix_spawn_file_actions_addclose(&actions, fd) }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard result == 0 else {
            throw BenchError(
                "spawn",
                "Could not start \(argv[0]): \(String(cString: strerror(result))). "
                    + "Is it installed (make deps) and built (swift build -c release)?")
        }
        return pid
    }

    /// Waits for `pid`; returns its exit status (128 + signal when killed).
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Runs `executable arguments…` to completion, stdout and stderr captured (through files), stdin empty.
    /// - Throws: ``BenchError`` when it cannot start.
    static func run(_ executable: String, _ arguments: [String]) throws -> ProcessResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jqc-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let outPath = scratch.path + ".out"
        let errPath = scratch.path + ".err"
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let pid = try spawn([executable] + arguments, stdout: .file(outPath), stderr: .file(errPath))
        let status = wait(pid)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let stdout = FileManager.default.contents(atPath: outPath) ?? Data()
        let stderr = FileManager.default.contents(atPath: errPath) ?? Data()
        return ProcessResult(
            status: status, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self),
            elapsed: elapsed)
    }

    /// Runs `first | second > output` as two processes joined by a pipe (no shell in between); returns
    /// the wall time from the first spawn to the last exit and both exit statuses.
    /// - Throws: ``BenchError`` when either cannot start.
    static func pipeline(_ first: [String], _ second: [String], output: URL) throws -> (Double, Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchError("spawn", "Could not create a pipe: \(errno).") }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let start = DispatchTime.now().uptimeNanoseconds
        let producer: pid_t
        let consumer: pid_t
        do {
            defer {
                Glibc.close(readEnd)
                Glibc.close(writeEnd)
            }
            producer = try spawn(first, stdout: .descriptor(writeEnd), close: [readEnd, writeEnd])
            consumer = try spawn(
                second, stdin: .descriptor(readEnd), stdout: .file(output.path),
                close: [readEnd, writeEnd])
        }
        let firstStatus = wait(producer)
        let secondStatus = wait(consumer)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (elapsed, firstStatus, secondStatus)
    }

    /// The peak resident set size in KiB of `arguments` as GNU time reports it (`/usr/bin/time -v`).
    /// - Throws: ``BenchError`` when GNU time is missing or the command fails.
    static func peakRSSKiB(_ arguments: [String]) throws -> Int {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw BenchError("missing-tool", "/usr/bin/time (GNU time) is missing; run make deps (package time).")
        }
        let result = try run("/usr/bin/time", ["-v"] + arguments)
        guard result.status == 0 else {
            throw BenchError("child-failed", "\(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        for line in result.stderr.split(separator: "\n") where line.contains("Maximum resident set size") {
            if let value = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                return value
            }
        }
        throw BenchError("child-failed", "GNU time printed no maximum resident set size.")
    }
}

/// A small deterministic random generator (SplitMix64) so every run measures the same work.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// CPU seconds (user + system) this process has used so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return cpuSeconds(usage)
}

/// CPU seconds (user + system) used so far by the children this process has waited for.
func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return cpuSeconds(usage)
}

private func cpuSeconds(_ usage: rusage) -> Double {
    Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}
