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

    /// The defaults: `synchronous=FULL`, 5 s busy timeout, read-write.
    public init(synchronous: Synchronous = .full, busyTimeout: Double = 5, readOnly: Bool = false) {
        self.synchronous = synchronous
        self.busyTimeout = busyTimeout
        self.readOnly = readOnly
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

    /// Opens (creating when missing) the store at `path`.
    /// - Parameters:
    ///   - path: a file path, or `:memory:` for a private in-memory store.
    ///   - configuration: durability, busy timeout, read-only.
    /// - Throws: ``DatabaseError``: `corrupt` when the file is not a database, `cannotOpen` when the folder is
    ///   missing or unwritable, `readOnly`.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        self.path = path
        connection = try Database(path: path, configuration: configuration)
    }

    /// Runs `body` in an IMMEDIATE transaction: all of it is committed, or none of it.
    /// - Throws: what `body` throws (after rollback), or ``DatabaseError``.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection { try $0.transaction(.immediate, body) }
    }

    /// Runs `body` in a deferred transaction (a consistent snapshot).
    /// - Throws: what `body` throws, or ``DatabaseError``.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection { try $0.transaction(.deferred, body) }
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
    }

    private func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock {
            guard let database = connection else {
                throw DatabaseError(kind: .misuse, detail: "The local store is closed.")
            }
            return try body(database)
        }
    }

    /// The SQLite library version in use (e.g. `3.40.1`).
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}
