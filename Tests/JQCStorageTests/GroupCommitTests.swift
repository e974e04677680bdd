import Foundation
import JQCTestSupport
import Synchronization
import Testing

@testable import JQCStorage

#if canImport(Glibc)
    import Glibc
#endif

/// A flush the test drives: each call says it started (with the inode of the file it flushes), waits for the
/// test's go-ahead (at most 120 s, a safety net), then runs `fdatasync` — or fails with `EIO` while `failing` is set.
private final class HeldFlush: Sendable {
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let inodes = Mutex<[UInt64]>([])
    let failing = Mutex(false)

    func flush(_ file: Int32) -> Int32 {
        var status = stat()
        _ = fstat(file, &status)
        inodes.withLock { $0.append(UInt64(status.st_ino)) }
        started.signal()
        _ = release.wait(timeout: .now() + 120)
        if failing.withLock({ $0 }) {
            errno = EIO
            return -1
        }
        return fdatasync(file)
    }
}

/// A store at `synchronous=FULL` whose group-commit flushes `held` runs, with a table `items`; its flusher
/// gathers with no delay unless `gathering` says otherwise.
private func heldStore(
    _ directory: TemporaryDirectory, _ held: HeldFlush,
    gathering: GroupCommit.Gathering = GroupCommit.Gathering(delay: 0, limit: 16)
) throws -> DatabaseQueue {
    let store = try DatabaseQueue(path: directory.path("store.sqlite").path, gathering: gathering, flush: held.flush)
    try store.write { db in try db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)") }
    return store
}

@Suite("Group commit: writes that share one fsync of the WAL (DatabaseQueue.writeWithGroupCommit, issue 17)")
struct GroupCommitTests {
    @Test("a group commit runs at synchronous=NORMAL and the connection is back at FULL after it")
    func commitsAtNormal() throws {
        let directory = TemporaryDirectory()
        let store = try DatabaseQueue(path: directory.path("store.sqlite").path)
        let (during, _) = try store.writeWithGroupCommit { db in try db.scalar("PRAGMA synchronous") as Int64? }
        #expect(during == 1)  // NORMAL: no fsync at this commit
        #expect(try store.writeWithoutTransaction { try $0.scalar("PRAGMA synchronous") as Int64? } == 2)
        // A body that throws rolls back and also leaves FULL behind.
        #expect(throws: DatabaseError.self) {
            try store.writeWithGroupCommit { db in try db.execute("INSERT INTO missing VALUES (1)") }
        }
        #expect(try store.writeWithoutTransaction { try $0.scalar("PRAGMA synchronous") as Int64? } == 2)
    }

    @Test("a group commit is seen by another connection at once and is durable only after a flush that began after it")
    func durableAfterItsFlush() async throws {
        let directory = TemporaryDirectory()
        let held = HeldFlush()
        let store = try heldStore(directory, held)
        let (_, first) = try store.writeWithGroupCommit { db in try db.execute("INSERT INTO items VALUES (1, 'a')") }
        held.started.wait()  // the flush covering `first` is running (held)
        let (_, second) = try store.writeWithGroupCommit { db in try db.execute("INSERT INTO items VALUES (2, 'b')") }
        #expect(!store.isDurable(first))
        #expect(!store.isDurable(second))
        // Committed: another connection (another process would do the same) reads both rows already.
        let other = try DatabaseQueue(path: store.path)
        #expect(try other.read { db in try db.scalar("SELECT count(*) FROM items") as Int64? } == 2)
        other.close()

        held.release.signal()
        try await store.waitUntilDurable(first)
        #expect(store.isDurable(first))
        // `second` came in while the first flush ran, so that flush does not cover it: a second one does.
        held.started.wait()
        #expect(!store.isDurable(second))
        held.release.signal()
        try await store.waitUntilDurable(second)
        #expect(store.isDurable(second))

        // Each flush was an fdatasync of the store's WAL file.
        var wal = stat()
        #expect(stat(store.path + "-wal", &wal) == 0)
        #expect(held.inodes.withLock { $0 } == [UInt64(wal.st_ino), UInt64(wal.st_ino)])
        store.close()
    }

    @Test("the flusher gathers commits until the backlog is full or someone waits for one")
    func gathersCommits() async throws {
        let directory = TemporaryDirectory()
        let held = HeldFlush()
        // An hour's delay: only a full backlog (3 commits) or a waiter starts a flush.
        let gatheringStarted = DispatchSemaphore(value: 0)
        let store = try heldStore(
            directory, held,
            gathering: GroupCommit.Gathering(delay: 3_600, limit: 3, willGather: { gatheringStarted.signal() }))
        func insert(_ id: Int) throws -> CommitTicket {
            try store.writeWithGroupCommit { db in try db.execute("INSERT INTO items VALUES (?, 'x')", [id]) }.ticket
        }
        let first = try insert(1)
        #expect(gatheringStarted.wait(timeout: .now() + 60) == .success)
        _ = try insert(2)
        #expect(held.started.wait(timeout: .now()) == .timedOut)  // two commits gathered, no flush yet
        let third = try insert(3)
        // The third filled the backlog: one flush for all three (60 s: a safety net against a hang, not a timing).
        #expect(held.started.wait(timeout: .now() + 60) == .success)
        held.release.signal()
        try await store.waitUntilDurable(third)
        #expect(store.isDurable(first))
        let fourth = try insert(4)
        #expect(gatheringStarted.wait(timeout: .now() + 60) == .success)
        #expect(held.started.wait(timeout: .now()) == .timedOut)
        held.release.signal()
        try await store.waitUntilDurable(fourth)  // waiting for it ends the gathering
        #expect(held.inodes.withLock { $0.count } == 2)
        store.close()
    }

    @Test("a flush that fails tells whoever waits, with a sentence; a later flush that succeeds covers later commits")
    func failedFlush() async throws {
        let directory = TemporaryDirectory()
        let held = HeldFlush()
        let store = try heldStore(directory, held)
        held.failing.withLock { $0 = true }
        held.release.signal()
        let (_, first) = try store.writeWithGroupCommit { db in try db.execute("INSERT INTO items VALUES (1, 'a')") }
        let error = await #expect(throws: DatabaseError.self) { try await store.waitUntilDurable(first) }
        #expect(error?.kind == .ioError)
        #expect(error?.message.contains("The local store could not be flushed to disk (fdatasync of ") == true)
        #expect(error?.message.contains("Input/output error") == true)
        #expect(!store.isDurable(first))
        // The row stays committed (a process crash would keep it); the next flush works again.
        held.failing.withLock { $0 = false }
        held.release.signal()
        let (_, second) = try store.writeWithGroupCommit { db in try db.execute("INSERT INTO items VALUES (2, 'b')") }
        try await store.waitUntilDurable(second)
        #expect(store.isDurable(first))
        #expect(try store.read { db in try db.scalar("SELECT count(*) FROM items") as Int64? } == 2)
        store.close()
    }

    @Test("at synchronous=NORMAL, or in memory, a group commit is an ordinary one: durable as it returns")
    func normalIsPlain() throws {
        let directory = TemporaryDirectory()
        let normal = try DatabaseQueue(
            path: directory.path("n.sqlite").path, configuration: .init(synchronous: .normal))
        let (during, ticket) = try normal.writeWithGroupCommit { db in try db.scalar("PRAGMA synchronous") as Int64? }
        #expect(during == 1)
        #expect(normal.isDurable(ticket))
        let memory = try DatabaseQueue(path: ":memory:")
        let (_, memoryTicket) = try memory.writeWithGroupCommit { db in try db.execute("CREATE TABLE t (x)") }
        #expect(memory.isDurable(memoryTicket))
    }
}
