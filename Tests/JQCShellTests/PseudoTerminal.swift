import Foundation
import JQCTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program run on a pseudo-terminal, driven like a person at a keyboard (issue 14 "Must show"): `openpty`,
/// then `posix_spawn` with a new session whose controlling terminal is the pty (the child opens the pty by
/// name after `setsid`, so Ctrl-C typed as a byte becomes SIGINT the way a real terminal makes it). A reader
/// thread feeds everything the program writes into a ``VirtualScreen``; tests wait on the screen with a
/// deadline (never a fixed sleep).
final class PseudoTerminal: @unchecked Sendable {  // because: the screen and transcript are guarded by `condition`.
    /// A condition that did not come true before the deadline; the description includes the screen.
    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    let processIdentifier: pid_t
    private let master: Int32
    private let condition = NSCondition()
    private var screen: VirtualScreen
    private var transcript: [UInt8] = []
    private var closed = false
    private var status: Int32?

    /// Starts `executable` on a new pty of `columns` × `rows`; `environment` is merged over this process's
    /// (with `TERM=xterm`, colour off and no locale variables unless given).
    init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], columns: Int = 100,
        rows: Int = 40
    ) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw POSIXError(.EIO) }
        defer { close(slave) }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        // ttyname_r, not ttyname: ttyname fills one static buffer, and parallel tests opening ptys at once
        // read each other's half-written path ("/dev/pts/" opened O_RDWR: EISDIR, seen on CI).
        var pathBuffer = [CChar](repeating: 0, count: 128)
        guard ttyname_r(slave, &pathBuffer, pathBuffer.count) == 0 else {
            close(master)
            throw POSIXError(.ENOTTY)
        }
        let slavePath = String(cString: pathBuffer)
        self.master = master
        screen = VirtualScreen(columns: columns, rows: rows)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)  // POSIX_SPAWN_SETSID (glibc), not imported by Swift
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)  // after setsid: the controlling tty
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        PseudoTerminal.closeFrom3(&actions)

        var merged = ProcessInfo.processInfo.environment
        for name in ["LANG", "LC_ALL", "LC_CTYPE", "NO_COLOR", "COLUMNS", "LINES"] { merged[name] = nil }
        merged["TERM"] = "xterm"
        merged["NO_COLOR"] = "1"
        merged["SWIFT_BACKTRACE"] = "interactive=no"  // a crash ends the child at once
        merged.merge(environment) { _, new in new }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let env = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in env { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable.path, &actions, &attributes, argv, env)
        guard result == 0 else {
            close(master)
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        processIdentifier = pid
        Thread.detachNewThread { [self] in readLoop() }
    }

    deinit {
        if status == nil {
            kill(processIdentifier, SIGKILL)
            var raw: Int32 = 0
            waitpid(processIdentifier, &raw, 0)
        }
        close(master)
    }

    private func readLoop() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            condition.lock()
            if count <= 0 {
                closed = true
                condition.broadcast()
                condition.unlock()
                return
            }
            transcript += chunk[0..<count]
            screen.feed(Array(chunk[0..<count]))
            condition.broadcast()
            condition.unlock()
        }
    }

    // MARK: Typing

    /// Types `text` (UTF-8; `\r` is Enter, `\u{7F}` Backspace, `\u{10}` Ctrl-P, `\u{1B}[A` ↑ …).
    func type(_ text: String) { type(bytes: Array(text.utf8)) }

    /// Types raw bytes (invalid UTF-8 included), however many.
    func type(bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(master, base + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }

    // MARK: Reading the screen

    /// Waits until `condition` holds for the screen, or `timeout` seconds pass.
    /// - Throws: ``Timeout`` naming `what` and showing the screen.
    @discardableResult
    func waitFor(_ what: String, timeout: Double = 30, _ predicate: (VirtualScreen) -> Bool) throws -> VirtualScreen {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(screen) {
            if closed || !condition.wait(until: deadline) {
                if predicate(screen) { break }
                throw Timeout(
                    description: "waited for \(what)\(closed ? " (the program ended)" : ""); the screen shows:\n"
                        + screen.allLines.joined(separator: "\n") + "\nthe last bytes: "
                        + String(decoding: transcript.suffix(200), as: UTF8.self).debugDescription)
            }
        }
        return screen
    }

    /// Waits until everything shown contains `text` (lines are joined, so a sentence wrapped at the screen's
    /// edge is found too).
    @discardableResult
    func waitForText(_ text: String, timeout: Double = 30) throws -> VirtualScreen {
        try waitFor("'\(text)'", timeout: timeout) { screen in screen.allLines.joined().contains(text) }
    }

    /// Waits until `text` has been shown `count` times (counted across all lines).
    @discardableResult
    func waitForText(_ text: String, count: Int, timeout: Double = 30) throws -> VirtualScreen {
        try waitFor("'\(text)' \(count) times", timeout: timeout) { screen in
            screen.allLines.reduce(0) { $0 + $1.components(separatedBy: text).count - 1 } >= count
        }
    }

    /// Waits until the cursor's line is exactly `line` (e.g. the prompt and what is typed).
    @discardableResult
    func waitForCursorLine(_ line: String, timeout: Double = 30) throws -> VirtualScreen {
        try waitFor("the cursor's line to read '\(line)'", timeout: timeout) { $0.cursorLine == line }
    }

    /// The screen now.
    var current: VirtualScreen {
        condition.lock()
        defer { condition.unlock() }
        return screen
    }

    /// Every byte the program wrote so far, decoded as UTF-8 (escape sequences included).
    var rawTranscript: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: transcript, as: UTF8.self)
    }

    // MARK: Ending

    /// Waits for the program to exit (after `quit` or Ctrl-D); kills it when `timeout` passes.
    /// - Returns: the exit status (128 + signal when killed).
    func waitForExit(timeout: Double = 30) -> Int32 {
        if let status { return status }
        let done = DispatchSemaphore(value: 0)
        let pid = processIdentifier
        let result = WaitStatus()
        Thread.detachNewThread {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            result.raw.store(raw, ordering: .relaxed)
            done.signal()
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            kill(pid, SIGKILL)
            done.wait()
        }
        let raw = result.raw.load(ordering: .relaxed)
        let signal = raw & 0x7f
        let status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        self.status = status
        return status
    }

    /// Closes every descriptor from 3 up in the child (as ``TestProcess`` does).
    private static func closeFrom3(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }
}

/// The raw `waitpid` status, handed from the waiting thread.
private final class WaitStatus: Sendable {
    let raw = Atomic<Int32>(0)
}
