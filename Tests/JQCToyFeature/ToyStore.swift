import Foundation
import JQCKit
import JQCStorage

/// A toy record: a name and one photo, made on the device and sent to the server (test support: the
/// smallest synced feature with a photo, installed through the same contract as the real ones).
public struct Toy: Sendable, Hashable, OutboxItem {
    /// The client's id, sent as `local_id`.
    public var localID: String
    /// What the inspector called it.
    public var name: String
    /// The server's id once synced.
    public var serverID: Int?
    /// The server path of its photo once uploaded (`uploads/toy_photos/<hex>.jpg`).
    public var photoServerPath: String?
    /// Its outbox state (the `toys` table's outbox columns).
    public var outbox: OutboxState

    /// The row's key: its local id.
    public var outboxKeys: [OutboxKey] { [OutboxKey(localID)] }
}

/// The `toys` table (namespace `toys`) and all its SQL.
public struct ToyStore: Sendable {
    /// The outbox table: record lifecycle, `updated_at` kept current.
    public static let outbox = OutboxTable("toys", key: ["local_id"], touching: "updated_at")
    /// The store.
    public let queue: DatabaseQueue

    /// A store over `queue`.
    public init(queue: DatabaseQueue) { self.queue = queue }

    /// Registers `toys/1-create` and the outbox's migrations.
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: "toys", "1-create") { db in
            try db.execute(
                """
                CREATE TABLE toys (
                    local_id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    server_id INTEGER UNIQUE,
                    photo_server_path TEXT,
                    created_at TEXT NOT NULL,
                    updated_at TEXT NOT NULL,
                    \(OutboxTable.columns)
                )
                """)
        }
        outbox.registerMigrations(namespace: "toys", in: &migrator)
    }

    func insert(_ db: Database, _ toy: Toy, at now: Date) throws {
        try db.execute(
            "INSERT INTO toys (local_id, name, server_id, photo_server_path, created_at, updated_at, "
                + OutboxTable.columnNames.joined(separator: ", ") + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [toy.localID, toy.name, toy.serverID, toy.photoServerPath, now, now] + toy.outbox.columnValues)
    }

    /// One toy, or `nil`.
    /// - Throws: `DatabaseError`.
    public func toy(localID: String) throws -> Toy? {
        try queue.read { db in try toy(db, localID: localID) }
    }

    func toy(_ db: Database, localID: String) throws -> Toy? {
        try db.fetchOne("SELECT * FROM toys WHERE local_id = ?", [localID]).map(Self.toy)
    }

    /// Pending toys, oldest first.
    /// - Throws: `DatabaseError`.
    public func pending() throws -> [Toy] {
        try queue.read { db in
            try db.fetchAll("SELECT * FROM toys WHERE sync_status = 'pending' ORDER BY created_at, rowid").map(Self.toy)
        }
    }

    /// How many toys wait for the server.
    /// - Throws: `DatabaseError`.
    public func pendingCount() throws -> Int {
        try queue.read { db in try db.scalar("SELECT count(*) FROM toys WHERE sync_status = 'pending'") ?? 0 }
    }

    /// Failed toys as `{kind: "toy", local_id, reason}`.
    /// - Throws: `DatabaseError`.
    public func failed() throws -> [(localID: String, reason: String)] {
        try queue.read { db in
            try db.fetchAll("SELECT local_id, sync_error FROM toys WHERE sync_status = 'failed' ORDER BY updated_at")
                .map { ($0["local_id"] ?? "", $0["sync_error"] ?? "The server refused it.") }
        }
    }

    func recordServerID(_ db: Database, localID: String, serverID: Int?) throws {
        try db.execute("UPDATE toys SET server_id = coalesce(?, server_id) WHERE local_id = ?", [serverID, localID])
    }

    func setPhotoPath(_ db: Database, localID: String, path: String) throws {
        try db.execute("UPDATE toys SET photo_server_path = ? WHERE local_id = ?", [path, localID])
    }

    func deleteServerKnown() throws -> [String] {
        try queue.write { db in
            let ids: [String] = try db.fetchAll("SELECT local_id FROM toys WHERE server_id IS NOT NULL")
                .compactMap { $0["local_id"] }
            try db.execute("DELETE FROM toys WHERE server_id IS NOT NULL")
            return ids
        }
    }

    private static func toy(_ row: Row) -> Toy {
        Toy(
            localID: row["local_id"] ?? "", name: row["name"] ?? "", serverID: row["server_id"],
            photoServerPath: row["photo_server_path"], outbox: OutboxState(row: row))
    }
}
