import CSQLite
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A place in the order of a store's group commits (``DatabaseQueue/writeWithGroupCommit(_:)``): commit n is on
/// disk once every commit up to n is. Compare tickets of one ``DatabaseQueue`` only.
public struct CommitTicket: Sendable, Hashable, Comparable {
    /// The commit's number on its queue, from 1; 0 stands for "nothing left to flush" (a write whose configured
    /// durability is already met when it commits).
    let sequence: UInt64

    /// A ticket that is on disk as soon as it is made.
    static let alreadyDurable = CommitTicket(sequence: 0)

    /// Whether `left` was committed before `right` (tickets of one queue).
    public static func < (left: CommitTicket, right: CommitTicket) -> Bool { left.sequence < right.sequence }
}

/// Group commit (issue 17) for a store opened with `synchronous=FULL`: transactions written with
/// ``DatabaseQueue/writeWithGroupCommit(_:)`` commit at `synchronous=NORMAL` (their WAL frames are written,
/// no fsync), and one background flusher makes them durable with `fdatasync` of the WAL file. The flusher
/// gathers before it flushes: it waits up to ``Gathering/delay`` after the first unflushed commit, or until
/// ``Gathering/limit`` commits are waiting, or until someone waits for a ticket — whichever comes first — so a
/// run of commits shares one flush (one fsync and one wake-up of the flusher instead of one per commit). The
/// writer never waits for the disk; whoever needs a commit on disk waits for its ``CommitTicket``.
///
/// What this changes, and what it does not:
/// - a process that dies (crash, `kill -9`) loses nothing: a committed WAL frame is in the kernel's page cache
///   and the next connection reads it, exactly as at FULL;
/// - an OS crash or a power cut may roll back the commits not yet flushed: at most ``Gathering/limit``
///   commits, made within ``Gathering/delay`` plus one flush time; SQLite's WAL keeps them in order, so what
///   survives is a prefix of the commits, never a hole and never a corrupt store (SQLite's documented
///   guarantee for `synchronous=NORMAL` in WAL mode).
///
/// The flusher opens the WAL by the name SQLite gives it (`sqlite3_filename_wal`), read-only, and `fsync`s
/// its folder once per file it opens (a WAL created by a NORMAL commit has its folder entry unflushed).
final class GroupCommit: Sendable {
    /// The flush itself: `fdatasync` of the open WAL file; tests replace it to hold or count flushes.
    typealias Flush = @Sendable (_ file: Int32) -> Int32

    /// How long the flusher lets commits gather before one flush, and how many it lets wait.
    struct Gathering: Sendable {
        /// The longest a commit waits for its flush to start when nobody waits for it, in seconds.
        var delay: Double
        /// The most commits waiting for a flush: the next one starts the flush at once.
        var limit: UInt64
        /// Test seam: called on the flusher's thread each time it starts to gather.
        var willGather: (@Sendable () -> Void)? = nil

        /// 20 ms or 64 commits. On a real network (tens of ms a request) every outbox record is flushed within
        /// 20 ms of its commit, before the next one is; on loopback (~1 ms a request) about twenty share a flush.
        /// Flushing less often matters because ext4's `fsync` holds the WAL's inode lock while it runs, so
        /// the next record's `pwrite` waits for it: 1,000 pushed inspections on loopback, 10 interleaved runs
        /// (2026-12-06), median 0.89 s gathering 4 ms, 0.85 s gathering 25 ms, 0.86 s flushing only at the end.
        static let standard = Gathering(delay: 0.020, limit: 64)
    }

    private struct State {
        var committed: UInt64 = 0
        var durable: UInt64 = 0
        var flushing = false
        /// Whether the flusher is gathering (waiting on ``GroupCommit/gathered``).
        var gathering = false
        /// The newest flush failure and the last commit it covered: tickets up to it fail.
        var failure: (upTo: UInt64, error: DatabaseError)?
        var waiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var file: Int32 = -1
        var closed = false

        /// Ends a gathering early; returns whether the flusher must be signalled.
        mutating func stopGathering() -> Bool {
            guard gathering else { return false }
            gathering = false
            return true
        }
    }

    private let state = Mutex(State())
    private let walPath: String
    private let flush: Flush
    private let gathering: Gathering
    /// Signalled to end a gathering early (a full backlog, a waiter, closing).
    private let gathered = DispatchSemaphore(value: 0)
    private let queue = DispatchQueue(label: "jqc.storage.group-commit", qos: .userInitiated)

    /// A flusher for the WAL at `walPath` (``DatabaseQueue`` passes `sqlite3_filename_wal`'s answer).
    init(walPath: String, gathering: Gathering = .standard, flush: @escaping Flush = { fdatasync($0) }) {
        self.walPath = walPath
        self.gathering = gathering
        self.flush = flush
    }

    /// Counts one commit written without its fsync and starts the flusher when it is not running (or ends its
    /// gathering when the backlog is full). Called by the writer right after `COMMIT`, under the queue's lock
    /// (so sequences follow the commits' order).
    /// - Returns: the commit's ticket.
    func committed() -> CommitTicket {
        let (sequence, start, signal) = state.withLock { state -> (UInt64, Bool, Bool) in
            state.committed += 1
            let start = !state.flushing && !state.closed
            if start { state.flushing = true }
            let full = state.committed - state.durable >= gathering.limit
            return (state.committed, start, full && state.stopGathering())
        }
        if start { queue.async { self.flushUntilCaughtUp() } }
        if signal { gathered.signal() }
        return CommitTicket(sequence: sequence)
    }

    /// Whether `ticket`'s commit is on disk (a failed flush counts as not).
    func isDurable(_ ticket: CommitTicket) -> Bool {
        state.withLock { $0.durable >= ticket.sequence }
    }

    /// Returns once `ticket`'s commit is on disk (at once when it already is).
    /// - Throws: ``DatabaseError`` (`io_error`, or `disk_full`) when the flush covering it failed.
    func waitUntilDurable(_ ticket: CommitTicket) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let (outcome, signal) = state.withLock { state -> (Result<Void, any Error>?, Bool) in
                if state.durable >= ticket.sequence { return (.success(()), false) }
                if let failure = state.failure, failure.upTo >= ticket.sequence {
                    return (.failure(failure.error), false)
                }
                state.waiters.append((ticket.sequence, continuation))
                return (nil, state.stopGathering())  // someone waits: flush now
            }
            if signal { gathered.signal() }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Waits for a running flush, then closes the WAL file; later commits are not flushed by this object.
    func close() {
        if state.withLock({ state in
            state.closed = true
            return state.stopGathering()
        }) {
            gathered.signal()
        }
        queue.sync {
            let file = state.withLock { state -> Int32 in
                defer { state.file = -1 }
                return state.file
            }
            if file >= 0 { Glibc.close(file) }
        }
        let waiting = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(throwing: Self.closedError) }
    }

    /// What a wait still open when the store closes gets.
    private static let closedError = DatabaseError(kind: .misuse, detail: "The local store is closed.")

    /// The flusher: gathers (see ``Gathering``), flushes what was committed by then, settles the waiters that
    /// flush covers (with its outcome), and goes again while commits came in meanwhile.
    private func flushUntilCaughtUp() {
        while true {
            let gather = state.withLock { state -> Bool in
                let backlog = state.committed - state.durable
                state.gathering = state.waiters.isEmpty && backlog < gathering.limit && !state.closed
                return state.gathering
            }
            if gather {
                gathering.willGather?()
                // A signal that comes after the delay ran out is left for the next gathering, which it ends
                // at once: one early flush, nothing lost.
                _ = gathered.wait(timeout: .now() + gathering.delay)
                state.withLock { $0.gathering = false }
            }
            let target = state.withLock { $0.committed }
            let outcome = flushOnce().mapError { $0 as any Error }
            let (covered, again) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], Bool) in
                switch outcome {
                case .success: state.durable = max(state.durable, target)
                case .failure(let error): state.failure = (target, error as? DatabaseError ?? Self.closedError)
                }
                var covered: [CheckedContinuation<Void, any Error>] = []
                state.waiters.removeAll { waiter in
                    guard waiter.sequence <= target else { return false }
                    covered.append(waiter.continuation)
                    return true
                }
                let again = state.committed > target && !state.closed
                if !again { state.flushing = false }
                return (covered, again)
            }
            for continuation in covered { continuation.resume(with: outcome) }
            if !again { return }
        }
    }

    /// One `fdatasync` of the WAL, opening it (and flushing its folder) first when needed.
    private func flushOnce() -> Result<Void, DatabaseError> {
        var file = state.withLock { $0.file }
        if file >= 0 {
            // SQLite deletes the WAL only when the last connection closes; a file gone from its folder is reopened.
            var status = stat()
            if fstat(file, &status) != 0 || status.st_nlink == 0 {
                Glibc.close(file)
                file = -1
                state.withLock { $0.file = -1 }
            }
        }
        if file < 0 {
            file = open(walPath, O_RDONLY | O_CLOEXEC)
            guard file >= 0 else { return .failure(Self.failure("open", errno: errno, path: walPath)) }
            let folder = (walPath as NSString).deletingLastPathComponent
            let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                defer { Glibc.close(directory) }
                if fsync(directory) != 0 {
                    let code = errno
                    Glibc.close(file)  // opened again, and its folder flushed again, by the next flush
                    return .failure(Self.failure("fsync", errno: code, path: folder))
                }
            }
            let opened = file
            state.withLock { $0.file = opened }
        }
        if flush(file) != 0 { return .failure(Self.failure("fdatasync", errno: errno, path: walPath)) }
        return .success(())
    }

    /// The error a failed flush reports: SQLite's `SQLITE_IOERR_FSYNC` with the system's reason (ENOSPC and its
    /// kin become `disk_full`).
    private static func failure(_ call: String, errno code: Int32, path: String) -> DatabaseError {
        DatabaseError(
            resultCode: SQLITE_IOERR | (4 << 8),
            detail: "The local store could not be flushed to disk (\(call) of \(path))", systemErrno: code)
    }
}
