import CSQLite
import Foundation
import JQCKit

/// How a store is opened.
public struct DatabaseConfiguration: Sendable {
    /// SQLite's `synchronous` setting: how hard a commit waits for the disk.
    public enum Synchronous: String, Sendable {
        /// fsync on every commit (the default: an inspector's work outranks speed).
        case full = "FULL"
        /// fsync at WAL checkpoints only; a power cut may lose the last commits, never corrupt.
        case normal = "NORMAL"
    }

    /// Durability mode; `.full` by default (issue 2).
    public var synchronous: Synchronous = .full
    /// How long to wait for another process's lock before failing with `busy`, in seconds.
    public var busyTimeout: Double = 5
    /// Open without write access.
    public var readOnly = false
    /// The most memory SQLite's page cache of the connection may hold, in KiB (`PRAGMA cache_size = -N`);
    /// ``standardPageCacheKiB`` by default.
    public var pageCacheKiB = DatabaseConfiguration.standardPageCacheKiB

    /// 3 MiB, where SQLite's own default is 2,000 KiB (issue 17). Answering touches one draft's answer rows;
    /// 50 open drafts of 1,000 fields hold ~450 pages of them (1.8 MiB), which with the indexes and the
    /// inspections' pages outgrew 2,000 KiB, so answers went to the file for pages the cache had just dropped.
    /// 3 MiB holds ~700 pages. It costs at most 1 MiB more resident memory once filled: `make bench`'s
    /// memory row (10,000 inspections synced) read +7.0 % with it, +4.3 % without, +9.9 % at 4 MiB (≤ 10 %).
    public static let standardPageCacheKiB = 3_072
    /// The page size, in bytes, a database file is created with (`PRAGMA page_size`): a power of two from 512
    /// to 65,536, or `nil` for SQLite's own (4,096). It applies only when the file is new (has no table yet): an
    /// existing file keeps the size it was made with, since in WAL mode SQLite cannot change it short of rebuilding
    /// the file. `nil` by default.
    public var pageSize: Int?

    /// 1 KiB pages, for a store whose commits each change a row or two (issue 17: the inspector's client, where an
    /// answer is one ~30-byte row). Every commit writes each page it changed whole to the WAL, checksummed and
    /// copied: with 4 KiB pages an answer wrote 4 KiB and read a cold 4 KiB page to do it. At 1 KiB, `make bench`'s
    /// answer on a 1,000-field draft took p50 15.8 µs against 18–30 µs (the bare commit 10.4 µs against 12–19 µs)
    /// and the system time per commit fell by a fifth. Larger rows (a submitted inspection's `form_data`) take
    /// overflow pages instead, which a read follows in order, and the file is larger: a 100,000-inspection store
    /// took 62 MiB against 52 MiB (an inspection's ~370-byte row fits twice in a page).
    public static let smallRowPageSize = 1_024

    /// The defaults: `synchronous=FULL`, 5 s busy timeout, read-write, a 3 MiB page cache, SQLite's page size.
    public init(
        synchronous: Synchronous = .full, busyTimeout: Double = 5, readOnly: Bool = false,
        pageCacheKiB: Int = DatabaseConfiguration.standardPageCacheKiB, pageSize: Int? = nil
    ) {
        self.synchronous = synchronous
        self.busyTimeout = busyTimeout
        self.readOnly = readOnly
        self.pageCacheKiB = pageCacheKiB
        self.pageSize = pageSize
    }
}

/// The local store: one SQLite connection (WAL, `foreign_keys=ON`, busy timeout, `synchronous=FULL`
/// by default) used by one thread at a time. `write` runs in an IMMEDIATE transaction, `read` in a
/// deferred one. Two processes (a shell and a background sync) may open the same file; WAL and the busy
/// timeout let them take turns.
///
/// Modelled on GRDB's `DatabaseQueue`:
/// ```swift
/// let store = try DatabaseQueue(path: dataDirectory + "/jqc.sqlite")
/// try migrator.migrate(store)
/// try store.write { db in try db.execute("UPDATE …", [value, id]) }
/// let count: Int? = try store.read { db in try db.scalar("SELECT count(*) FROM …") }
/// ```
public final class DatabaseQueue: @unchecked Sendable {  // because: the connection is touched only under `lock`.
    private let lock = NSLock()
    private var connection: Database?
    /// The file path.
    public let path: String
    /// The group-commit flusher; `nil` unless the store is a file opened read-write at `synchronous=FULL` (at
    /// NORMAL a commit promises no fsync, so a group commit is an ordinary one).
    private let groupCommit: GroupCommit?
    /// Set when a group commit could not put `synchronous` back to FULL: the next use of the connection does it
    /// first (or fails), so no other write ever commits at NORMAL by accident.
    private var synchronousToRestore = false

    /// Opens (creating when missing) the store at `path`.
    /// - Parameters:
    ///   - path: a file path, or `:memory:` for a private in-memory store.
    ///   - configuration: durability, busy timeout, read-only.
    /// - Throws: ``DatabaseError``: `corrupt` when the file is not a database, `cannotOpen` when the folder is
    ///   missing or unwritable, `readOnly`.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        self.path = path
        let database = try Database(path: path, configuration: configuration)
        connection = database
        groupCommit =
            configuration.synchronous == .full && !configuration.readOnly
            ? database.walPath.map { GroupCommit(walPath: $0) } : nil
    }

    /// Test seam: a queue whose flusher gathers as `gathering` says and runs `flush` instead of `fdatasync`.
    init(path: String, gathering: GroupCommit.Gathering = .standard, flush: @escaping GroupCommit.Flush) throws {
        self.path = path
        let database = try Database(path: path, configuration: DatabaseConfiguration())
        connection = database
        groupCommit = database.walPath.map { GroupCommit(walPath: $0, gathering: gathering, flush: flush) }
    }

    /// Runs `body` in an IMMEDIATE transaction: all of it is committed, or none of it.
    /// - Throws: what `body` throws (after rollback), or ``DatabaseError``.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection { try $0.transaction(.immediate, body) }
    }

    /// Runs `body` in an IMMEDIATE transaction committed without its own fsync: group commit (issue 17). At
    /// `synchronous=FULL` the transaction commits at NORMAL (its WAL frames written, not flushed) and a
    /// background flusher makes it durable together with the commits around it (one `fdatasync` of the WAL
    /// for the commits of up to 20 ms, at most 64, or at once when someone waits). For writes whose loss in a
    /// power cut costs a repeat, not an inspector's work — the outbox's record of a sent item (losing it means
    /// sending it again) — where waiting for the disk after each of them would cost more than the work itself.
    ///
    /// Against a crash or `kill -9` of the process it is as durable as ``write(_:)`` the moment it returns;
    /// against an OS crash or power cut only once ``isDurable(_:)`` says so (``waitUntilDurable(_:)``), and
    /// what a power cut rolls back is always the newest commits, in order. At `synchronous=NORMAL` this is
    /// ``write(_:)`` and the ticket is durable at once (the configuration promises no more).
    /// - Returns: `body`'s value and the commit's ticket.
    /// - Throws: what `body` throws (after rollback), or ``DatabaseError``.
    public func writeWithGroupCommit<T>(_ body: (Database) throws -> T) throws -> (value: T, ticket: CommitTicket) {
        try withConnection { database in
            guard let groupCommit else { return (try database.transaction(.immediate, body), .alreadyDurable) }
            try database.executeOne("PRAGMA synchronous = NORMAL")
            synchronousToRestore = true
            let outcome = Result { try database.transaction(.immediate, body) }
            if case .success = outcome {
                // Counted before the lock is released, so tickets follow the commits' order.
                let ticket = groupCommit.committed()
                try? restoreSynchronous(database)
                return (try outcome.get(), ticket)
            }
            try? restoreSynchronous(database)
            return (try outcome.get(), .alreadyDurable)
        }
    }

    /// Whether a group commit is on disk (see ``writeWithGroupCommit(_:)``); `false` after its flush failed.
    public func isDurable(_ ticket: CommitTicket) -> Bool {
        groupCommit?.isDurable(ticket) ?? true
    }

    /// Returns once a group commit is on disk (at once when it already is).
    /// - Throws: ``DatabaseError`` (`io_error`, or `disk_full`) when the `fdatasync` covering it failed: the
    ///   commit is in the store, but a power cut could still undo it; `misuse` when the store closed first.
    public func waitUntilDurable(_ ticket: CommitTicket) async throws {
        try await groupCommit?.waitUntilDurable(ticket)
    }

    /// Runs `body` in a deferred transaction (a consistent snapshot).
    /// - Throws: what `body` throws, or ``DatabaseError``.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection { try $0.transaction(.deferred, body) }
    }

    /// The size of the file's pages, in bytes (`PRAGMA page_size`): set when the file was made
    /// (``DatabaseConfiguration/pageSize``) and kept for its life.
    /// - Throws: ``DatabaseError``.
    public func pageSize() throws -> Int {
        Int(try withConnection { try $0.scalar("PRAGMA page_size") as Int64? } ?? 0)
    }

    /// Runs `body` outside any transaction (for `PRAGMA`s, `VACUUM`, or explicit transaction control).
    /// - Throws: what `body` throws, or ``DatabaseError``.
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection(body)
    }

    /// Closes the connection; later calls fail with a `misuse` error.
    public func close() {
        lock.withLock {
            connection?.close()
            connection = nil
        }
        groupCommit?.close()
    }

    private func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock {
            guard let database = connection else {
                throw DatabaseError(kind: .misuse, detail: "The local store is closed.")
            }
            if synchronousToRestore { try restoreSynchronous(database) }
            return try body(database)
        }
    }

    /// Puts `synchronous` back to FULL after a group commit (under the lock).
    private func restoreSynchronous(_ database: Database) throws {
        try database.executeOne("PRAGMA synchronous = FULL")
        synchronousToRestore = false
    }

    /// The SQLite library version in use (e.g. `3.40.1`).
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}
