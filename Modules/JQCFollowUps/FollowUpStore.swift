import Foundation
import JQCInspections
import JQCKit
import JQCStorage

/// The feature's table, namespaced `followups` (FEATURES.md step 1). New columns always carry defaults
/// (seed 001 rule 8); `server_id` (the parent's) is set explicitly on every write (rule 63's lesson).
public enum FollowUpsSchema {
    /// The migration namespace.
    public static let namespace = "followups"

    /// Registers this feature's migrations, in order.
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: namespace, "1-create") { db in
            try db.execute(
                """
                CREATE TABLE follow_up_requests (
                    server_id INTEGER PRIMARY KEY NOT NULL,
                    template_id INTEGER NOT NULL,
                    template_name TEXT,
                    facility_id INTEGER NOT NULL,
                    facility_name TEXT,
                    area_id INTEGER,
                    area_name TEXT,
                    note TEXT,
                    inspection_date TEXT,
                    parent_form_data TEXT NOT NULL DEFAULT '{}',
                    fulfilled_locally INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE follow_up_state (
                    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                    refreshed INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT
                )
                """)
        }
        migrator.registerMigration(namespace: namespace, "2-pull-etag") { db in
            // The follow-ups reply as last applied, with its ETag (issue 17, conditional requests): erased with the
            // state row whenever the cache is cleared (logout, server or user switch).
            try db.execute("ALTER TABLE follow_up_state ADD COLUMN etag TEXT")
            try db.execute("ALTER TABLE follow_up_state ADD COLUMN reply TEXT")
        }
    }
}

/// The SQL of the follow-ups feature. Reads return values (rule 68); a pull is one transaction.
public final class FollowUpStore: Sendable {
    /// The store.
    public let queue: DatabaseQueue
    private let inspections: InspectionStore

    /// A store over `queue` (migrated with ``FollowUpsSchema`` and the inspections schema).
    public init(queue: DatabaseQueue, inspections: InspectionStore) {
        self.queue = queue
        self.inspections = inspections
    }

    /// Applies a pull in one transaction (seed 001 §8 step 6): upserts every request by the parent's server
    /// id (clearing `fulfilled_locally`), mirrors `follow_up_required`/`follow_up_note` onto the matching
    /// local inspections, and — only when `complete` (the reply was not cut at its limit) — deletes the
    /// requests the server no longer returns and clears the flag of synced local inspections it no longer
    /// lists (the "after sync" clearing point, §15). `condition` is the reply's ETag and JSON text, kept for the
    /// next conditional pull (issue 17); `nil` forgets both.
    /// - Returns: how many cached requests were deleted.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func apply(
        _ requests: [FollowUpRequest], complete: Bool, condition: (etag: String, reply: String)? = nil
    ) throws -> Int {
        try queue.write { db in
            try db.execute(
                """
                INSERT INTO follow_up_state (id, etag, reply) VALUES (1, ?, ?)
                ON CONFLICT(id) DO UPDATE SET etag = excluded.etag, reply = excluded.reply
                """, [condition?.etag, condition?.reply])
            for r in requests {
                try db.execute(
                    """
                    INSERT INTO follow_up_requests (server_id, template_id, template_name, facility_id, facility_name,
                        area_id, area_name, note, inspection_date, parent_form_data, fulfilled_locally)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
                    ON CONFLICT(server_id) DO UPDATE SET template_id = excluded.template_id,
                        template_name = excluded.template_name, facility_id = excluded.facility_id,
                        facility_name = excluded.facility_name, area_id = excluded.area_id,
                        area_name = excluded.area_name, note = excluded.note,
                        inspection_date = excluded.inspection_date, parent_form_data = excluded.parent_form_data,
                        fulfilled_locally = 0
                    """,
                    [
                        r.serverID, r.templateID, r.templateName, r.facilityID, r.facilityName, r.areaID, r.areaName,
                        r.note, r.inspectionDate, JSONValue.object(r.parentFormData).jsonString(),
                    ])
            }
            var flagged: [Int: String?] = [:]
            for r in requests { flagged[r.serverID] = r.note }
            try inspections.mirrorFollowUps(db, flagged: flagged, complete: complete)
            guard complete else { return 0 }
            let cached: [Int] = try db.fetchAll("SELECT server_id FROM follow_up_requests").compactMap {
                $0["server_id"]
            }
            var deleted = 0
            for id in cached where flagged[id] == nil {
                try db.execute("DELETE FROM follow_up_requests WHERE server_id = ?", [id])
                deleted += 1
            }
            return deleted
        }
    }

    /// The visible requests (hidden ones left out), oldest parent first.
    /// - Throws: `DatabaseError`.
    public func all(visibleOnly: Bool = true) throws -> [FollowUpRequest] {
        try queue.read { db in
            try db.fetchAll(
                "SELECT * FROM follow_up_requests" + (visibleOnly ? " WHERE fulfilled_locally = 0" : "")
                    + " ORDER BY coalesce(inspection_date, ''), server_id"
            ).map(Self.request)
        }
    }

    /// One cached request by the parent's server id.
    /// - Throws: `DatabaseError`.
    public func request(serverID: Int) throws -> FollowUpRequest? {
        try queue.read { db in
            try db.fetchOne("SELECT * FROM follow_up_requests WHERE server_id = ?", [serverID]).map(Self.request)
        }
    }

    /// The ETag and JSON text of the reply last applied with an ETag, or `nil` (none, or the cache was cleared).
    /// - Throws: `DatabaseError`.
    public func pullCondition() throws -> (etag: String, reply: String)? {
        try queue.read { db in
            guard let row = try db.fetchOne("SELECT etag, reply FROM follow_up_state WHERE id = 1"),
                let etag: String = row["etag"], let reply: String = row["reply"]
            else { return nil }
            return (etag, reply)
        }
    }

    /// Records how the last pull ended (`error` = its sentence, or `nil` on success).
    /// - Throws: `DatabaseError`.
    public func recordRefresh(error: String?) throws {
        try queue.write { db in try RefreshRecord.record(db, table: "follow_up_state", error: error) }
    }

    /// Whether a pull was ever attempted, and the last pull's failure sentence.
    /// - Throws: `DatabaseError`.
    public func refreshState() throws -> (attempted: Bool, lastError: String?) {
        try queue.read { db in try RefreshRecord.state(db, table: "follow_up_state") }
    }

    /// Hides a request locally (a re-inspection of it was submitted), in the caller's transaction.
    /// - Throws: `DatabaseError`.
    public func markFulfilledLocally(_ db: Database, serverID: Int) throws {
        try db.execute("UPDATE follow_up_requests SET fulfilled_locally = 1 WHERE server_id = ?", [serverID])
    }

    /// Erases every cached request (logout, server switch: rule 42 — all of them are server-pulled).
    /// - Throws: `DatabaseError`.
    public func clearCache() throws {
        try queue.write { db in
            try db.execute("DELETE FROM follow_up_requests")
            try db.execute("DELETE FROM follow_up_state")
        }
    }

    static func request(_ row: Row) -> FollowUpRequest {
        let formText: String = row["parent_form_data"] ?? "{}"
        return FollowUpRequest(
            serverID: row["server_id"] ?? 0, templateID: row["template_id"] ?? 0, templateName: row["template_name"],
            facilityID: row["facility_id"] ?? 0, facilityName: row["facility_name"], areaID: row["area_id"],
            areaName: row["area_name"], note: row["note"], inspectionDate: row["inspection_date"],
            parentFormData: (try? JSONValue.parse(formText))?.objectValue ?? [:],
            fulfilledLocally: row["fulfilled_locally"] ?? false)
    }
}
