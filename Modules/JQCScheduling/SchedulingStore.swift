import Foundation
import JQCKit
import JQCStorage

/// The feature's tables, namespaced `scheduling` (FEATURES.md step 1). New columns always carry defaults
/// (seed 001 rule 8); `server_id` is the key and is set explicitly on every write (rule 63's lesson).
public enum SchedulingSchema {
    /// The migration namespace.
    public static let namespace = "scheduling"

    /// Registers this feature's migrations, in order.
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: namespace, "1-create") { db in
            try db.execute(
                """
                CREATE TABLE scheduled_inspections (
                    server_id INTEGER PRIMARY KEY NOT NULL,
                    facility_id INTEGER NOT NULL,
                    facility_name TEXT,
                    template_id INTEGER NOT NULL,
                    template_name TEXT,
                    inspector_id INTEGER,
                    frequency TEXT NOT NULL DEFAULT 'once',
                    frequency_label TEXT,
                    due_date TEXT NOT NULL,
                    next_due_date TEXT,
                    is_overdue INTEGER NOT NULL DEFAULT 0,
                    notes TEXT,
                    parent_inspection_id INTEGER,
                    fulfilled_locally INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX scheduled_inspections_match ON scheduled_inspections (facility_id, template_id, due_date);
                CREATE TABLE scheduling_state (
                    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                    server_today TEXT,
                    refreshed INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT
                )
                """)
        }
        migrator.registerMigration(namespace: namespace, "2-etag") { db in
            // The ETag of the cached list (issue 17, conditional requests): erased with the state row whenever the
            // cache is cleared (logout, server or user switch), so a 304 never stands for an empty cache.
            try db.execute("ALTER TABLE scheduling_state ADD COLUMN etag TEXT")
        }
    }
}

/// The SQL of the scheduling feature. Reads return values (seed 001 rule 68); every multi-row change is one
/// transaction. Cached rows are deleted in exactly one place: ``apply(_:serverToday:isAbsent:etag:)`` for the rows the
/// server no longer returns (rule 71).
public final class SchedulingStore: Sendable {
    /// The store.
    public let queue: DatabaseQueue

    /// A store over `queue` (migrated with ``SchedulingSchema``).
    public init(queue: DatabaseQueue) { self.queue = queue }

    // MARK: Pull

    /// Applies a pull in one transaction: upserts every returned schedule by its server id (clearing
    /// `fulfilled_locally`: the pull is the only writer of a cached schedule's dates, rule 71), deletes the
    /// cached rows the reply proves gone (issue 21: `isAbsent`, by default every id not among `schedules`; a pull
    /// passes ``/JQCNetwork/DecodedList/provesAbsent(_:)`` so an unreadable item never costs its cached row), and
    /// remembers the server's today when known, and stores the reply's `etag` (`nil` drops it: a server without
    /// ETags, or a reply with an unreadable item, which must be read again).
    /// - Returns: how many cached rows were deleted.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func apply(
        _ schedules: [ScheduledInspection], serverToday: CalendarDay?, isAbsent: ((Int) -> Bool)? = nil,
        etag: String? = nil
    ) throws -> Int {
        try queue.write { db in
            try storeETag(db, etag)
            for s in schedules {
                try db.execute(
                    """
                    INSERT INTO scheduled_inspections (server_id, facility_id, facility_name, template_id,
                        template_name, inspector_id, frequency, frequency_label, due_date, next_due_date, is_overdue,
                        notes, parent_inspection_id, fulfilled_locally)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
                    ON CONFLICT(server_id) DO UPDATE SET facility_id = excluded.facility_id,
                        facility_name = excluded.facility_name, template_id = excluded.template_id,
                        template_name = excluded.template_name, inspector_id = excluded.inspector_id,
                        frequency = excluded.frequency, frequency_label = excluded.frequency_label,
                        due_date = excluded.due_date, next_due_date = excluded.next_due_date,
                        is_overdue = excluded.is_overdue, notes = excluded.notes,
                        parent_inspection_id = excluded.parent_inspection_id, fulfilled_locally = 0
                    """,
                    [
                        s.serverID, s.facilityID, s.facilityName, s.templateID, s.templateName, s.inspectorID,
                        s.frequency.rawValue, s.frequencyLabel, s.dueDate.text, s.nextDueDate?.text,
                        s.serverSaysOverdue,
                        s.notes, s.parentInspectionID,
                    ])
            }
            let returned = Set(schedules.map(\.serverID))
            let absent = isAbsent ?? { !returned.contains($0) }
            let cached: [Int] = try db.fetchAll("SELECT server_id FROM scheduled_inspections").compactMap {
                $0["server_id"]
            }
            var deleted = 0
            for id in cached where absent(id) && !returned.contains(id) {
                try db.execute("DELETE FROM scheduled_inspections WHERE server_id = ?", [id])
                deleted += 1
            }
            if let serverToday { try recordServerToday(db, serverToday) }
            return deleted
        }
    }

    /// A `304 Not Modified` to the conditional pull (issue 17), in one transaction: the cached rows are what the
    /// cached reply wrote, so only what re-applying it would change is changed — every `fulfilled_locally` is
    /// cleared (rule 71: the pull shows the server's dates) and the server's today remembered when known.
    /// - Returns: how many hidden schedules show again.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func applyNotModified(serverToday: CalendarDay?) throws -> Int {
        try queue.write { db in
            try db.execute("UPDATE scheduled_inspections SET fulfilled_locally = 0 WHERE fulfilled_locally = 1")
            let shown = db.changesCount
            if let serverToday { try recordServerToday(db, serverToday) }
            return shown
        }
    }

    /// The stored ETag of the cached list, or `nil` (none, or the cache was cleared).
    /// - Throws: `DatabaseError`.
    public func etag() throws -> String? {
        try queue.read { db in try db.scalar("SELECT etag FROM scheduling_state WHERE id = 1") }
    }

    private func storeETag(_ db: Database, _ etag: String?) throws {
        try db.execute(
            "INSERT INTO scheduling_state (id, etag) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET etag = excluded.etag",
            [etag])
    }

    /// Remembers the server's today (from a health reply), never moving it back.
    /// - Throws: `DatabaseError`.
    public func recordServerToday(_ db: Database, _ today: CalendarDay) throws {
        try db.execute(
            """
            INSERT INTO scheduling_state (id, server_today) VALUES (1, ?)
            ON CONFLICT(id) DO UPDATE SET server_today = max(coalesce(server_today, ''), excluded.server_today)
            """, [today.text])
    }

    /// The server's today as last remembered at a pull, or `nil`. Never later than the server's real today
    /// (days only move forward), so matching against it can only match less, never more.
    /// - Throws: `DatabaseError`.
    public func lastServerToday(_ db: Database) throws -> CalendarDay? {
        let text: String? = try db.scalar("SELECT server_today FROM scheduling_state WHERE id = 1")
        return text.flatMap(CalendarDay.init)
    }

    /// ``lastServerToday(_:)`` in its own read.
    /// - Throws: `DatabaseError`.
    public func lastServerToday() throws -> CalendarDay? { try queue.read { db in try lastServerToday(db) } }

    /// Records how the last pull ended (`error` = its sentence, or `nil` on success), for the read
    /// surface's phase and stale note.
    /// - Throws: `DatabaseError`.
    public func recordRefresh(error: String?) throws {
        try queue.write { db in try RefreshRecord.record(db, table: "scheduling_state", error: error) }
    }

    /// Whether a pull was ever attempted, and the last pull's failure sentence.
    /// - Throws: `DatabaseError`.
    public func refreshState() throws -> (attempted: Bool, lastError: String?) {
        try queue.read { db in try RefreshRecord.state(db, table: "scheduling_state") }
    }

    // MARK: Reads

    /// Every cached schedule by due date (then id), hidden ones included unless `visibleOnly`.
    /// - Throws: `DatabaseError`.
    public func all(visibleOnly: Bool = true) throws -> [ScheduledInspection] {
        try queue.read { db in
            try db.fetchAll(
                "SELECT * FROM scheduled_inspections"
                    + (visibleOnly ? " WHERE fulfilled_locally = 0" : "") + " ORDER BY due_date, server_id"
            ).map(Self.schedule)
        }
    }

    /// One cached schedule.
    /// - Throws: `DatabaseError`.
    public func schedule(serverID: Int) throws -> ScheduledInspection? {
        try queue.read { db in try schedule(db, serverID: serverID) }
    }

    /// One cached schedule, in the caller's transaction.
    /// - Throws: `DatabaseError`.
    public func schedule(_ db: Database, serverID: Int) throws -> ScheduledInspection? {
        try db.fetchOne("SELECT * FROM scheduled_inspections WHERE server_id = ?", [serverID]).map(Self.schedule)
    }

    /// The visible schedules, in the caller's transaction (rule 69's candidates).
    /// - Throws: `DatabaseError`.
    public func visible(_ db: Database) throws -> [ScheduledInspection] {
        try db.fetchAll("SELECT * FROM scheduled_inspections WHERE fulfilled_locally = 0 ORDER BY due_date, server_id")
            .map(Self.schedule)
    }

    /// The visible follow-up schedules planned for a parent inspection, earliest first.
    /// - Throws: `DatabaseError`.
    public func followUpSchedules(parentInspectionID: Int) throws -> [ScheduledInspection] {
        try queue.read { db in
            try db.fetchAll(
                """
                SELECT * FROM scheduled_inspections WHERE parent_inspection_id = ? AND fulfilled_locally = 0
                ORDER BY due_date, server_id
                """, [parentInspectionID]
            ).map(Self.schedule)
        }
    }

    // MARK: Writes

    /// Hides a schedule locally (rule 71: flagged, never deleted), in the caller's transaction.
    /// - Throws: `DatabaseError`.
    public func markFulfilledLocally(_ db: Database, serverID: Int) throws {
        try db.execute("UPDATE scheduled_inspections SET fulfilled_locally = 1 WHERE server_id = ?", [serverID])
    }

    /// Erases every cached schedule and the remembered day (logout, server switch: rule 42 — all of it is
    /// server-pulled).
    /// - Throws: `DatabaseError`.
    public func clearCache() throws {
        try queue.write { db in
            try db.execute("DELETE FROM scheduled_inspections")
            try db.execute("DELETE FROM scheduling_state")
        }
    }

    static func schedule(_ row: Row) -> ScheduledInspection {
        let dueText: String = row["due_date"] ?? ""
        let nextText: String? = row["next_due_date"]
        return ScheduledInspection(
            serverID: row["server_id"] ?? 0, facilityID: row["facility_id"] ?? 0, facilityName: row["facility_name"],
            templateID: row["template_id"] ?? 0, templateName: row["template_name"],
            inspectorID: row["inspector_id"], frequency: ScheduleFrequency(rawValue: row["frequency"] ?? "once"),
            frequencyLabel: row["frequency_label"], dueDate: CalendarDay(dueText) ?? CalendarDay("1970-01-01")!,
            nextDueDate: nextText.flatMap(CalendarDay.init), serverSaysOverdue: row["is_overdue"] ?? false,
            notes: row["notes"], parentInspectionID: row["parent_inspection_id"],
            fulfilledLocally: row["fulfilled_locally"] ?? false)
    }
}
