import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive lock shared by every process that opens the same file: `flock(2)` on a small lock file
/// (mode 0600) kept beside what it guards (`<data-dir>/credentials.lock`, `<data-dir>/sync.lock`).
///
/// Several processes share one data directory — the REPL, a background timer, scripts — so anything
/// read-modify-write across them (the refresh token, a sync pass) needs a lock the kernel keeps, not an
/// actor (STYLE.md pitfalls; issue 15). `flock` locks belong to an open file description, so two holders
/// in one process exclude each other too, and a process that dies (even by `kill -9`) releases its lock.
///
/// ```swift
/// let lock = FileLock(url: directory.appendingPathComponent("sync.lock"))
/// guard let hold = try lock.tryAcquire() else { return }   // another process holds it
/// defer { hold.release() }
/// ```
public final class FileLock: Sendable {
    /// Why a lock could not be taken, as a sentence.
    public struct LockError: CodedError {
        /// Why: `kit.lock_timeout` (another holder kept it too long) or `kit.lock_unusable` (the file failed).
        public enum Kind: String, CodedErrorKind {
            /// The wait timed out while another holder kept the lock.
            case timedOut = "lock_timeout"
            /// The lock file could not be opened or locked.
            case unusable = "lock_unusable"
            /// The codes' module part, `kit`.
            public static var module: String { "kit" }
        }

        /// The lock file.
        public let path: String
        /// `errno` when opening or locking failed; `nil` when the wait timed out.
        public let systemErrno: Int32?
        /// Seconds waited before giving up (timeouts only).
        public let waited: Double

        /// ``Kind/timedOut`` when there is no ``systemErrno``, else ``Kind/unusable``.
        public var kind: Kind { systemErrno == nil ? .timedOut : .unusable }

        /// `kit.<kind>`.
        public var code: String { kind.code }

        /// The sentence, naming the lock file.
        public var message: String {
            guard let systemErrno else {
                return "Another jqc process has held \(path) for \(Int(waited.rounded())) s; try again in a moment."
            }
            return "Could not use the lock file \(path): \(String(cString: strerror(systemErrno))). "
                + "Check that the data directory is writable."
        }
    }

    /// The lock file (created, empty, when missing).
    public let url: URL

    /// A lock on `url`; nothing is opened until a hold is asked for.
    public init(url: URL) { self.url = url }

    /// Takes the lock if no one else holds it, without waiting.
    /// - Returns: the hold, or `nil` when another holder (this process or another) has it.
    /// - Throws: ``LockError`` when the lock file cannot be opened or locked.
    public func tryAcquire() throws -> FileLockHold? {
        let fd = try openFile()
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLockHold(fd: fd) }
        let code = errno
        close(fd)
        if code == EWOULDBLOCK || code == EINTR { return nil }
        throw LockError(path: url.path, systemErrno: code, waited: 0)
    }

    /// Waits for the lock, checking again every few milliseconds (2 ms at first, then at most every 50 ms).
    /// - Parameter timeout: the longest wait in seconds; `nil` waits until the task is cancelled.
    /// - Returns: the hold.
    /// - Throws: ``LockError`` (unusable file, or the timeout passed), `CancellationError`.
    public func acquire(timeout: Double?) async throws -> FileLockHold {
        let fd = try openFile()
        let started = DispatchTime.now().uptimeNanoseconds
        var pause: UInt64 = 2_000_000
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLockHold(fd: fd) }
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(fd)
                throw LockError(path: url.path, systemErrno: code, waited: 0)
            }
            let waited = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            if let timeout, waited >= timeout {
                close(fd)
                throw LockError(path: url.path, systemErrno: nil, waited: waited)
            }
            do {
                try await Task.sleep(nanoseconds: pause)
            } catch {
                close(fd)
                throw error
            }
            pause = min(pause * 2, 50_000_000)
        }
    }

    /// Blocks the calling thread until the lock is free — for short critical sections in synchronous code
    /// (an embedded server's first start), never on a thread of Swift's cooperative pool for long.
    /// - Returns: the hold.
    /// - Throws: ``LockError`` when the lock file cannot be opened or locked.
    public func acquireBlocking() throws -> FileLockHold {
        let fd = try openFile()
        while flock(fd, LOCK_EX) != 0 {
            let code = errno
            guard code == EINTR else {
                close(fd)
                throw LockError(path: url.path, systemErrno: code, waited: 0)
            }
        }
        return FileLockHold(fd: fd)
    }

    /// The process id the current holder wrote into the lock file, when one is recorded (for messages).
    public var holderProcessID: Int32? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private func openFile() throws -> Int32 {
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw LockError(path: url.path, systemErrno: errno, waited: 0) }
        return fd
    }
}

/// A held ``FileLock``: released by ``release()`` or when the value goes away (and by the kernel when the
/// process ends). The holder's process id is written into the lock file, best-effort, for messages.
public final class FileLockHold: Sendable {
    private let descriptor: Mutex<Int32>

    fileprivate init(fd: Int32) {
        descriptor = Mutex(fd)
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
    }

    /// Whether the lock is still held by this value.
    public var isHeld: Bool { descriptor.withLock { $0 >= 0 } }

    /// Releases the lock; later calls do nothing.
    public func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            _ = ftruncate(fd, 0)
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
