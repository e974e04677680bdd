import Foundation
import JQCKit
import JQCStorage

/// The photos feature's tables (namespace `photos`; FEATURES.md item 1): `pending_photos` is an outbox
/// (``PhotoStore/outbox``) whose outbox columns are JQCStorage's; owner kinds are an open set (`2-open-owner-kinds`
/// dropped the list the first table checked).
///
/// `pending_photos` has no foreign key to its owner: owners live in later features' tables (JQCInspections,
/// JQCIssues) that this module may not name (SPEC.md §2); owner removal goes through
/// ``PhotoService/deletePhotos(for:in:)`` and ``PhotoOwnerStatusProvider`` instead (documented under rule 37
/// in Docs/RULES.md).
public enum PhotosSchema {
    /// The migrations' namespace.
    public static let namespace = "photos"

    /// Registers the photos migrations (`photos/1-create`).
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: namespace, "1-create") { db in
            try db.execute(
                """
                CREATE TABLE pending_photos (
                    id TEXT PRIMARY KEY NOT NULL,
                    owner_kind TEXT NOT NULL CHECK (owner_kind IN ('inspection', 'issue')),
                    owner_local_id TEXT NOT NULL,
                    field_id TEXT,
                    file_name TEXT NOT NULL,
                    entity_type TEXT NOT NULL CHECK (entity_type IN ('inspection', 'issue')),
                    captured_at TEXT NOT NULL,
                    created_at TEXT NOT NULL,
                    width INTEGER NOT NULL DEFAULT 0,
                    height INTEGER NOT NULL DEFAULT 0,
                    bytes INTEGER NOT NULL DEFAULT 0,
                    upload_state TEXT NOT NULL DEFAULT 'pending'
                        CHECK (upload_state IN ('pending', 'uploaded', 'settled')),
                    server_path TEXT,
                    server_url TEXT,
                    sync_status TEXT NOT NULL DEFAULT 'pending'
                        CHECK (sync_status IN ('pending', 'synced', 'failed')),
                    sync_attempts INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at TEXT,
                    sync_error TEXT
                )
                """)
            try db.execute("CREATE INDEX pending_photos_owner ON pending_photos (owner_kind, owner_local_id)")
            try db.execute("CREATE INDEX pending_photos_outbox ON pending_photos (sync_status, upload_state)")
        }
        PhotoStore.outbox.registerMigrations(namespace: namespace, in: &migrator)
        // Owner kinds are declared by the owners (an open set), so the table no longer lists them.
        migrator.registerMigration(namespace: namespace, "2-open-owner-kinds") { db in
            try db.execute(
                """
                CREATE TABLE pending_photos_new (
                    id TEXT PRIMARY KEY NOT NULL,
                    owner_kind TEXT NOT NULL,
                    owner_local_id TEXT NOT NULL,
                    field_id TEXT,
                    file_name TEXT NOT NULL,
                    entity_type TEXT NOT NULL,
                    captured_at TEXT NOT NULL,
                    created_at TEXT NOT NULL,
                    width INTEGER NOT NULL DEFAULT 0,
                    height INTEGER NOT NULL DEFAULT 0,
                    bytes INTEGER NOT NULL DEFAULT 0,
                    upload_state TEXT NOT NULL DEFAULT 'pending'
                        CHECK (upload_state IN ('pending', 'uploaded', 'settled')),
                    server_path TEXT,
                    server_url TEXT,
                    sync_status TEXT NOT NULL DEFAULT 'pending'
                        CHECK (sync_status IN ('pending', 'synced', 'failed')),
                    sync_attempts INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at TEXT,
                    sync_error TEXT,
                    deferred_reason TEXT
                )
                """)
            try db.execute(
                """
                INSERT INTO pending_photos_new (id, owner_kind, owner_local_id, field_id, file_name, entity_type,
                    captured_at, created_at, width, height, bytes, upload_state, server_path, server_url, sync_status,
                    sync_attempts, last_attempt_at, sync_error, deferred_reason)
                SELECT id, owner_kind, owner_local_id, field_id, file_name, entity_type, captured_at, created_at,
                    width, height, bytes, upload_state, server_path, server_url, sync_status, sync_attempts,
                    last_attempt_at, sync_error, deferred_reason
                FROM pending_photos ORDER BY rowid
                """)
            try db.execute("DROP TABLE pending_photos")
            try db.execute("ALTER TABLE pending_photos_new RENAME TO pending_photos")
            try db.execute("CREATE INDEX pending_photos_owner ON pending_photos (owner_kind, owner_local_id)")
            try db.execute("CREATE INDEX pending_photos_outbox ON pending_photos (sync_status, upload_state)")
        }
        // The rebuild above drops the author columns and trigger `pending_photos-outbox-2` installed on a store
        // that had not rebuilt yet ([authorship], issue 20): installed again, attributing the rows the same way.
        migrator.registerMigration(namespace: namespace, "3-outbox-authorship") { db in
            try PhotoStore.outbox.installAuthorship(db)
        }
    }
}

/// All SQL of the photos feature (lint: SQL only in `*Store.swift`). Every function works inside a
/// transaction the caller opened and returns values (rule 68).
public struct PhotoStore: Sendable {
    /// The photos folder (`<data-dir>/photos`): a row's `file_name` is resolved against it, never a path
    /// taken from the server.
    public let directory: URL

    /// The photos outbox: record lifecycle (a photo is `synced` once settled), keyed by id.
    public static let outbox = OutboxTable("pending_photos", key: ["id"])

    /// A store resolving files against `directory`.
    public init(directory: URL) { self.directory = directory }

    private static let columns = """
        id, owner_kind, owner_local_id, field_id, file_name, entity_type, captured_at, created_at, width, height,
        bytes, upload_state, server_path, server_url, sync_status, sync_attempts, last_attempt_at, sync_error,
        deferred_reason
        """
    /// What a read selects: the inserted columns and the author a trigger stamped ([authorship], issue 20).
    private static let readColumns = columns + ", " + OutboxTable.authorColumnNames.joined(separator: ", ")

    /// Inserts a new pending photo.
    /// - Throws: `DatabaseError`.
    func insert(_ photo: PendingPhoto, in db: Database) throws {
        try db.execute(
            "INSERT INTO pending_photos (\(Self.columns)) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                photo.id.uuidString, photo.owner.kind.rawValue, photo.owner.localID, photo.owner.fieldID,
                photo.localFile.lastPathComponent, photo.entityType, photo.capturedAt, photo.createdAt, photo.width,
                photo.height, photo.bytes, photo.state.rawValue, photo.serverPath, photo.serverURL,
            ] + photo.outbox.columnValues)
    }

    /// One photo by id, or `nil`.
    /// - Throws: `DatabaseError`.
    func photo(id: UUID, in db: Database) throws -> PendingPhoto? {
        try db.fetchOne("SELECT \(Self.readColumns) FROM pending_photos WHERE id = ?", [id.uuidString]).flatMap(decode)
    }

    /// Every photo of `owner` (all fields when `owner.fieldID` is `nil`), oldest first.
    /// - Throws: `DatabaseError`.
    func photos(for owner: PhotoOwner, in db: Database) throws -> [PendingPhoto] {
        var sql = "SELECT \(Self.readColumns) FROM pending_photos WHERE owner_kind = ? AND owner_local_id = ?"
        var arguments: StatementArguments = [owner.kind.rawValue, owner.localID]
        if let field = owner.fieldID {
            sql += " AND field_id = ?"
            arguments.append(field)
        }
        return try db.fetchAll(sql + " ORDER BY created_at, rowid", arguments).compactMap(decode)
    }

    /// Photos in the outbox in `state` (not failed, not synced), oldest first.
    /// - Throws: `DatabaseError`.
    func outbox(state: PhotoUploadState, in db: Database) throws -> [PendingPhoto] {
        try db.fetchAll(
            "SELECT \(Self.readColumns) FROM pending_photos WHERE sync_status = 'pending' AND upload_state = ? "
                + "ORDER BY created_at, rowid", [state.rawValue]
        ).compactMap(decode)
    }

    /// Every settled photo, oldest first.
    /// - Throws: `DatabaseError`.
    func settled(in db: Database) throws -> [PendingPhoto] {
        try db.fetchAll(
            "SELECT \(Self.readColumns) FROM pending_photos WHERE upload_state = 'settled' ORDER BY created_at, rowid"
        ).compactMap(decode)
    }

    /// Every distinct owning record (kind, local id) with at least one photo.
    /// - Throws: `DatabaseError`.
    func owners(in db: Database) throws -> [PhotoOwner] {
        try db.fetchAll("SELECT DISTINCT owner_kind, owner_local_id FROM pending_photos ORDER BY 1, 2").compactMap {
            row in
            guard let kind: String = row["owner_kind"], let localID: String = row["owner_local_id"] else { return nil }
            return PhotoOwner(kind: PhotoOwnerKind(kind), localID: localID)
        }
    }

    /// Every photo id, for the orphan-file sweep.
    /// - Throws: `DatabaseError`.
    func allIDs(in db: Database) throws -> Set<String> {
        Set(try db.fetchAll("SELECT id FROM pending_photos").compactMap { $0["id"] as String? })
    }

    /// Whether the record has a photo that is not settled (pending, uploaded or failed).
    /// - Throws: `DatabaseError`.
    func hasUnsettled(kind: PhotoOwnerKind, localID: String, in db: Database) throws -> Bool {
        let count: Int =
            try db.scalar(
                "SELECT COUNT(*) FROM pending_photos WHERE owner_kind = ? AND owner_local_id = ? "
                    + "AND upload_state <> 'settled'", [kind.rawValue, localID]) ?? 0
        return count > 0
    }

    /// Records the server's path and URL: state `uploaded`, still pending (the outbox columns are the driver's).
    /// - Throws: `DatabaseError`.
    func markUploaded(_ id: UUID, path: String, url: String?, in db: Database) throws {
        try db.execute(
            "UPDATE pending_photos SET upload_state = 'uploaded', server_path = ?, server_url = ? WHERE id = ?",
            [path, url, id.uuidString])
    }

    /// The owner has been told: state `settled` (the driver marks the outbox row `synced` in the same
    /// transaction).
    /// - Throws: `DatabaseError`.
    func markSettled(_ id: UUID, in db: Database) throws {
        try db.execute("UPDATE pending_photos SET upload_state = 'settled' WHERE id = ?", [id.uuidString])
    }

    /// Puts a failed photo back in the outbox with no counted tries.
    /// - Returns: whether a failed photo with that id existed.
    /// - Throws: `DatabaseError`.
    func resetFailed(_ id: UUID, at now: Date, in db: Database) throws -> Bool {
        try Self.outbox.retry(db, OutboxKey(id.uuidString), at: now)
    }

    /// Deletes rows by id.
    /// - Throws: `DatabaseError`.
    func delete(_ ids: [UUID], in db: Database) throws {
        for id in ids {
            try db.execute("DELETE FROM pending_photos WHERE id = ?", [id.uuidString])
        }
    }

    /// Photos not uploaded yet and not failed (the `status` count, SHELL.md).
    /// - Throws: `DatabaseError`.
    func pendingUploadCount(in db: Database) throws -> Int {
        try db.scalar(
            "SELECT COUNT(*) FROM pending_photos WHERE sync_status = 'pending' AND upload_state = 'pending'") ?? 0
    }

    /// Failed photos, oldest first.
    /// - Throws: `DatabaseError`.
    func failed(in db: Database) throws -> [PendingPhoto] {
        try db.fetchAll(
            "SELECT \(Self.readColumns) FROM pending_photos WHERE sync_status = 'failed' ORDER BY created_at, rowid"
        ).compactMap(decode)
    }

    private func decode(_ row: Row) -> PendingPhoto? {
        guard let idText: String = row["id"], let id = UUID(uuidString: idText),
            let kindText: String = row["owner_kind"],
            let localID: String = row["owner_local_id"], let capturedAt: Date = row["captured_at"],
            let createdAt: Date = row["created_at"],
            let stateText: String = row["upload_state"], let state = PhotoUploadState(rawValue: stateText),
            let statusText: String = row["sync_status"], SyncStatus(rawValue: statusText) != nil
        else { return nil }
        return PendingPhoto(
            id: id, owner: PhotoOwner(kind: PhotoOwnerKind(kindText), localID: localID, fieldID: row["field_id"]),
            localFile: PhotoStore.fileURL(for: id, in: directory),
            entityType: row["entity_type"] ?? kindText, capturedAt: capturedAt, createdAt: createdAt,
            state: state, serverPath: row["server_path"], serverURL: row["server_url"],
            outbox: OutboxState(row: row),
            width: row["width"] ?? 0, height: row["height"] ?? 0, bytes: row["bytes"] ?? 0)
    }

    /// `<directory>/<id>.jpg`: the only way a photo's local file is named (never from server data).
    static func fileURL(for id: UUID, in directory: URL) -> URL {
        directory.appendingPathComponent("\(id.uuidString).jpg", isDirectory: false)
    }
}
