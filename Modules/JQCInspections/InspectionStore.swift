import Foundation
import JQCFacilities
import JQCForms
import JQCKit
import JQCStorage
import JQCSync

/// The `inspections` table (issue 7; seed 001 `LocalInspection`). New columns always get defaults (rule 8); the
/// outbox columns are JQCStorage's (``InspectionStore/outbox``), added to older stores by its migration.
public enum InspectionsSchema {
    /// Registers the `inspections` namespace's migrations.
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: "inspections", "1-create") { db in
            try db.execute(
                """
                CREATE TABLE inspections (
                    local_id TEXT PRIMARY KEY NOT NULL,
                    server_id INTEGER UNIQUE,
                    template_id INTEGER NOT NULL,
                    template_name TEXT NOT NULL DEFAULT '',
                    facility_id INTEGER NOT NULL,
                    facility_name TEXT NOT NULL DEFAULT '',
                    area_id INTEGER,
                    area_name TEXT,
                    project_id INTEGER,
                    status TEXT NOT NULL DEFAULT 'draft',
                    sync_status TEXT NOT NULL DEFAULT 'pending',
                    sync_attempts INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at TEXT,
                    sync_error TEXT,
                    form_data TEXT NOT NULL DEFAULT '{}',
                    schema_snapshot TEXT NOT NULL DEFAULT '[]',
                    schema_hash TEXT NOT NULL DEFAULT '',
                    overall_score REAL,
                    started_at TEXT NOT NULL,
                    completed_at TEXT,
                    parent_inspection_local_id TEXT,
                    parent_inspection_server_id INTEGER,
                    scheduled_inspection_server_id INTEGER,
                    submit_latitude REAL,
                    submit_longitude REAL,
                    notes TEXT,
                    follow_up_required INTEGER NOT NULL DEFAULT 0,
                    follow_up_note TEXT,
                    created_at TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                )
                """)
            try db.execute("CREATE INDEX inspections_outbox ON inspections(status, sync_status)")
        }
        InspectionStore.outbox.registerMigrations(namespace: "inspections", in: &migrator)
        // Issue 17: a pinned schema is stored once per schema hash, not in every inspection row, so a write to
        // a draft's row (an answer, a save) never rewrites its schema. Rows written before keep theirs inline.
        migrator.registerMigration(namespace: "inspections", "2-pinned-schemas") { db in
            try db.execute(
                """
                CREATE TABLE inspection_schemas (
                    schema_hash TEXT PRIMARY KEY NOT NULL,
                    snapshot TEXT NOT NULL
                ) WITHOUT ROWID
                """)
        }
        // `status` and the outbox's failed list ask by `sync_status` alone, which `inspections_outbox`
        // (status first) cannot answer without reading every row (issue 17: a 100,000-inspection store).
        migrator.registerMigration(namespace: "inspections", "3-sync-status-index") { db in
            try db.execute("CREATE INDEX IF NOT EXISTS inspections_sync_status ON inspections(sync_status)")
        }
        // Issue 17 ("Local writes at the floor"): a draft's answers are rows of `inspection_answers`, one per
        // field, so an answer writes one small row (and one page) whatever the form's size; the draft's
        // `form_data` is '' (the marker the row reader follows) and its `updated_at` the later of the row's and
        // its answers' `answered_at` (the row's time for rows written whole). Every existing draft's answers move there,
        // as the row reader saw them; submitted inspections keep theirs in `form_data`.
        migrator.registerMigration(namespace: "inspections", "4-answers") { db in
            try db.execute(
                """
                CREATE TABLE inspection_answers (
                    local_id TEXT NOT NULL,
                    field_id TEXT NOT NULL,
                    value TEXT NOT NULL,
                    answered_at TEXT,
                    PRIMARY KEY (local_id, field_id)
                ) WITHOUT ROWID
                """)
            let drafts: [String] = try db.fetchAll("SELECT local_id FROM inspections WHERE status = 'draft'")
                .compactMap { $0["local_id"] }
            for localID in drafts { try moveAnswersToLocalIDRows(db, localID: localID) }
        }
        // Issue 17: the answer path's one read (``InspectionStore/openDraft(_:localID:)``) from a partial
        // covering index of the open drafts — a page or two, whatever the store's size — instead of a search of
        // the primary-key index and then of the table (two b-trees of 100,000 rows each on a worked device).
        migrator.registerMigration(namespace: "inspections", "5-open-drafts-index") { db in
            try db.execute(
                """
                CREATE INDEX IF NOT EXISTS inspections_open_drafts ON inspections(local_id, schema_hash, status, form_data)
                WHERE status = 'draft' AND form_data = ''
                """)
        }
        // Issue 17: an answer row's time as INTEGER milliseconds (``Foundation/Date/databaseMilliseconds``),
        // 6 bytes where the text took 23: a third fewer pages of answers to search and keep in cache (a 1,000-field
        // draft's rows: ~17 leaves → ~12). The column's affinity cannot change in place, so the table is rebuilt,
        // each text time read by the store's own date reader (the same millisecond; NULL stays NULL).
        migrator.registerMigration(namespace: "inspections", "6-answer-times") { db in
            try db.execute(
                """
                CREATE TABLE inspection_answers_compact (
                    local_id TEXT NOT NULL,
                    field_id TEXT NOT NULL,
                    value TEXT NOT NULL,
                    answered_at INTEGER,
                    PRIMARY KEY (local_id, field_id)
                ) WITHOUT ROWID
                """)
            for row in try db.fetchAll("SELECT local_id, field_id, value, answered_at FROM inspection_answers") {
                let localID: String = row["local_id"] ?? ""
                let fieldID: String = row["field_id"] ?? ""
                let value: String = row["value"] ?? "null"
                try db.execute(
                    "INSERT INTO inspection_answers_compact (local_id, field_id, value, answered_at) VALUES (?, ?, ?, ?)",
                    [localID, fieldID, value, InspectionStore.answerMilliseconds(row)])
            }
            try db.execute("DROP TABLE inspection_answers")
            try db.execute("ALTER TABLE inspection_answers_compact RENAME TO inspection_answers")
        }
        // Issue 17: a draft's answer rows keyed by an integer of its own (`inspections.answers_key`, 1–8 bytes)
        // instead of its local id (36 characters on a device: a UUID), in every row: the rows take about half the
        // pages they did, and each search of them compares integers. The key comes from a counter
        // (`inspection_answer_keys`) that only goes up, never from the rowid (VACUUM may renumber a table
        // without an INTEGER PRIMARY KEY), so a row left behind can never join a later draft. Every inspection
        // with answer rows, and every draft whose answers are rows, gets its key here in row order; rows of an
        // inspection no longer on the device (which no reader could see) are not carried over. The open-drafts
        // index carries the key, so the answer path still reads one index entry.
        migrator.registerMigration(namespace: "inspections", "7-answer-keys") { db in
            try db.execute("ALTER TABLE inspections ADD COLUMN answers_key INTEGER")
            try db.execute(
                "CREATE TABLE inspection_answer_keys (id INTEGER PRIMARY KEY CHECK (id = 1), last INTEGER NOT NULL)")
            let keyed: [String] = try db.fetchAll(
                """
                SELECT local_id FROM inspections
                WHERE (status = 'draft' AND form_data = '') OR local_id IN (SELECT local_id FROM inspection_answers)
                ORDER BY rowid
                """
            ).compactMap { $0["local_id"] }
            for (index, localID) in keyed.enumerated() {
                try db.execute("UPDATE inspections SET answers_key = ? WHERE local_id = ?", [index + 1, localID])
            }
            try db.execute("INSERT INTO inspection_answer_keys (id, last) VALUES (1, ?)", [keyed.count])
            try db.execute(
                """
                CREATE TABLE inspection_answers_keyed (
                    answers_key INTEGER NOT NULL,
                    field_id TEXT NOT NULL,
                    value TEXT NOT NULL,
                    answered_at INTEGER,
                    PRIMARY KEY (answers_key, field_id)
                ) WITHOUT ROWID
                """)
            try db.execute(
                """
                INSERT INTO inspection_answers_keyed (answers_key, field_id, value, answered_at)
                SELECT inspections.answers_key, inspection_answers.field_id, inspection_answers.value,
                    inspection_answers.answered_at
                FROM inspection_answers JOIN inspections ON inspections.local_id = inspection_answers.local_id
                ORDER BY inspections.answers_key, inspection_answers.field_id
                """)
            try db.execute("DROP TABLE inspection_answers")
            try db.execute("ALTER TABLE inspection_answers_keyed RENAME TO inspection_answers")
            try db.execute("DROP INDEX IF EXISTS inspections_open_drafts")
            try db.execute(
                """
                CREATE INDEX inspections_open_drafts ON inspections(local_id, answers_key, schema_hash, status, form_data)
                WHERE status = 'draft' AND form_data = ''
                """)
        }
        // Issue 17: each answer row at an integer slot, the table's rowid: its draft's key × 65,536 + the field's
        // place — the id itself for a plain decimal below 32,768 (``InspectionStore/fixedPlace(_:)``), else 32,768
        // and up, in the order of the ids' text — so an answer is one search of integer keys and a write in place.
        // Every row kept, its values copied as stored; `answers_key` stays a column, and the CHECK ties it to the
        // slot, so a writer of the old layout (no slot) fails instead of landing in another draft's range. Written
        // out in SQL with its own numbers: migrations are history.
        migrator.registerMigration(namespace: "inspections", "8-answer-slots") { db in
            try db.execute(
                """
                CREATE TABLE inspection_answers_slotted (
                    slot INTEGER PRIMARY KEY,
                    answers_key INTEGER NOT NULL CHECK (slot >> 16 = answers_key),
                    field_id TEXT NOT NULL,
                    value TEXT NOT NULL,
                    answered_at INTEGER
                )
                """)
            try db.execute(
                """
                INSERT INTO inspection_answers_slotted (slot, answers_key, field_id, value, answered_at)
                SELECT answers_key * 65536 + coalesce(fixed, 32767 + row_number() OVER (
                        PARTITION BY answers_key, fixed IS NULL ORDER BY field_id)),
                    answers_key, field_id, value, answered_at
                FROM (
                    SELECT *, CASE
                        WHEN field_id <> '' AND field_id NOT GLOB '*[^0-9]*' AND length(field_id) <= 5
                            AND (field_id = '0' OR field_id NOT GLOB '0*') AND CAST(field_id AS INTEGER) < 32768
                        THEN CAST(field_id AS INTEGER) END AS fixed
                    FROM inspection_answers
                )
                """)
            try db.execute("DROP TABLE inspection_answers")
            try db.execute("ALTER TABLE inspection_answers_slotted RENAME TO inspection_answers")
        }
    }

    /// Migration `inspections/4-answers`' move, in that migration's layout (rows keyed by the local id; the
    /// time as the row's `updated_at`, in the milliseconds migration 6 reads): every answer of one draft as the
    /// row reader saw it (`{}` for text that is not a JSON object), each value re-written by ``JSONValue``; its
    /// `form_data` set to ''. Migrations are history: this stays as migration 4 ran, whatever the store becomes.
    private static func moveAnswersToLocalIDRows(_ db: Database, localID: String) throws {
        guard let row = try db.fetchOne("SELECT form_data, updated_at FROM inspections WHERE local_id = ?", [localID]),
            let text: String = row["form_data"], !text.isEmpty
        else { return }
        let time = (row["updated_at"] as Date?)?.databaseMilliseconds
        for (fieldID, value) in (try? JSONValue.parse(text))?.objectValue ?? [:] {
            try db.execute(
                "INSERT INTO inspection_answers (local_id, field_id, value, answered_at) VALUES (?, ?, ?, ?)",
                [localID, fieldID, value.jsonString(), time])
        }
        try db.execute("UPDATE inspections SET form_data = '' WHERE local_id = ?", [localID])
    }
}

/// Reads and writes local inspections. Methods taking a `Database` run inside the caller's transaction
/// (the service composes one transaction per action); the others open their own.
public final class InspectionStore: Sendable {
    /// The outbox table: record lifecycle, `updated_at` kept current by every outbox write.
    public static let outbox = OutboxTable("inspections", key: ["local_id"], touching: "updated_at")

    /// The store.
    public let queue: DatabaseQueue

    /// A store over `queue` (migrated with ``InspectionsSchema``).
    public init(queue: DatabaseQueue) {
        self.queue = queue
    }

    // MARK: Reads

    /// One inspection, or `nil`.
    /// - Throws: `DatabaseError`.
    public func inspection(localID: String) throws -> Inspection? {
        try queue.read { db in try inspection(db, localID: localID) }
    }

    /// One inspection inside a transaction, or `nil`.
    /// - Throws: `DatabaseError`.
    public func inspection(_ db: Database, localID: String) throws -> Inspection? {
        try db.fetchOne("SELECT \(Self.selection) WHERE inspections.local_id = ?", [localID]).map(Self.inspection)
    }

    /// Every local inspection, newest first; only drafts when `draftsOnly`.
    /// - Throws: `DatabaseError`.
    public func all(draftsOnly: Bool = false) throws -> [Inspection] {
        try queue.read { db in try db.fetchAll(Self.listSQL(draftsOnly: draftsOnly)).map(Self.inspection) }
    }

    /// The list's query; the drafts-only one searches `inspections_outbox` (pinned in `InspectionQueryPlanTests`).
    static func listSQL(draftsOnly: Bool) -> String {
        let filter = draftsOnly ? " WHERE inspections.status = 'draft'" : ""
        return "SELECT \(Self.selection)\(filter) ORDER BY inspections.created_at DESC, inspections.rowid DESC"
    }

    /// Every local inspection's list line, newest first; only drafts when `draftsOnly`. Reads the row's plain
    /// columns only — never `form_data` nor a pinned schema (``InspectionListing``).
    /// - Throws: `DatabaseError`.
    public func listings(draftsOnly: Bool = false) throws -> [InspectionListing] {
        try queue.read { db in try db.fetchAll(Self.listingSQL(draftsOnly: draftsOnly)).map(Self.listing) }
    }

    /// The list lines' query: the columns ``InspectionListing`` holds, in the order of ``listSQL(draftsOnly:)``;
    /// the drafts-only one searches `inspections_outbox` (pinned in `InspectionQueryPlanTests`).
    static func listingSQL(draftsOnly: Bool) -> String {
        let columns =
            [
                "local_id", "server_id", "template_id", "template_name", "facility_id", "facility_name", "area_id",
                "area_name", "status", "schema_hash", "overall_score", "created_at",
            ] + OutboxTable.columnNames + OutboxTable.authorColumnNames
        let filter = draftsOnly ? " WHERE status = 'draft'" : ""
        return "SELECT \(columns.joined(separator: ", ")) FROM inspections\(filter) "
            + "ORDER BY created_at DESC, rowid DESC"
    }

    /// Completed inspections waiting for the outbox (not synced, not failed), oldest submit first.
    /// - Throws: `DatabaseError`.
    public func pendingSubmissions() throws -> [Inspection] {
        try queue.read { db in
            try db.fetchAll(
                """
                SELECT \(Self.selection) WHERE inspections.status = 'completed' AND inspections.sync_status = 'pending'
                ORDER BY inspections.completed_at, inspections.rowid
                """
            ).map(Self.inspection)
        }
    }

    /// The push list (issue 17): ``pendingSubmissions()`` without the pinned schemas, which the `POST` body never
    /// carries — each item's `schemaSnapshot` is an empty array (no join, no schema parsed: three quarters of
    /// the push's per-item instructions before), every other column as stored. Same rows, same order.
    /// - Throws: `DatabaseError`.
    public func pendingPushes() throws -> [Inspection] {
        try queue.read { db in
            try db.fetchAll(
                """
                SELECT * FROM inspections WHERE status = 'completed' AND sync_status = 'pending'
                ORDER BY completed_at, rowid
                """
            ).map { Self.inspection($0, schema: false) }
        }
    }

    /// The columns a push item is read from (``InspectionPush/body(_:)``), with the outbox's.
    static let pushColumns =
        [
            "local_id", "template_id", "facility_id", "area_id", "form_data", "overall_score", "started_at",
            "completed_at", "parent_inspection_server_id", "scheduled_inspection_server_id", "submit_latitude",
            "submit_longitude", "notes", "created_at", "updated_at",
        ] + OutboxTable.columnNames + OutboxTable.authorColumnNames

    /// The push list's query: completed pending inspections, oldest submit first (as ``InspectionStore/pendingPushes()``).
    static let pushListSQL = """
        SELECT \(pushColumns.joined(separator: ", ")) FROM inspections
        WHERE status = 'completed' AND sync_status = 'pending' ORDER BY completed_at, rowid
        """

    /// The push list as the `inspections` stage sends it (issue 17): the rows of ``pendingPushes()``, in its
    /// order, each with its POST body written (``InspectionPush/body(_:)``) and, in the same read transaction,
    /// why it waits for its photos (`photoWaitReason`, rule 12) — one transaction for the whole list.
    /// - Throws: `DatabaseError`, or what `photoWaitReason` throws.
    func pendingPushItems(photoWaitReason: (String, Database) throws -> String?) throws -> [InspectionPush] {
        try queue.read { db in
            try db.fetchAll(Self.pushListSQL).map { row in
                let localID: String = row["local_id"] ?? ""
                return InspectionPush(
                    localID: localID, outbox: OutboxState(row: row), body: InspectionPush.body(row),
                    photoWaitReason: try photoWaitReason(localID, db))
            }
        }
    }

    /// The columns of an inspection row and where they come from: the row, with its pinned schema from
    /// `inspection_schemas` when the row's own `schema_snapshot` is empty (rows written since issue 17), and
    /// — when its `form_data` is '' (a draft since `inspections/4-answers`) — its answers from
    /// `inspection_answers` as one JSON object, found by the row's `answers_key` (its range of slots, from
    /// `answers_key` × ``slotsPerKey``; `table_answers`: each value's stored text, joined; NULL when there
    /// are none) and the time of the latest one (`answered_at`; the row's `updated_at` when later).
    static let selection = """
        inspections.*, inspection_schemas.snapshot AS pinned_snapshot,
        CASE WHEN inspections.form_data = '' THEN (
            SELECT '{' || group_concat(json_quote(inspection_answers.field_id) || ':' || inspection_answers.value, ',')
                || '}'
            FROM inspection_answers WHERE inspection_answers.slot
                BETWEEN inspections.answers_key * \(slotsPerKey) AND inspections.answers_key * \(slotsPerKey) + \(slotsPerKey - 1)
        ) END AS table_answers,
        CASE WHEN inspections.form_data = '' THEN (
            SELECT max(inspection_answers.answered_at) FROM inspection_answers WHERE inspection_answers.slot
                BETWEEN inspections.answers_key * \(slotsPerKey) AND inspections.answers_key * \(slotsPerKey) + \(slotsPerKey - 1)
        ) END AS answered_at
        FROM inspections
        LEFT JOIN inspection_schemas ON inspections.schema_snapshot = ''
            AND inspection_schemas.schema_hash = inspections.schema_hash
        """
    // MARK: Writes (inside the caller's transaction)

    /// Inserts a new inspection. Its pinned schema goes into `inspection_schemas` once per schema hash when
    /// the hash is the schema's own (JQCForms `FormSchema.hash`), the row keeping an empty `schema_snapshot`;
    /// a schema whose given hash does not match stays in the row. A draft's answers go into
    /// `inspection_answers` (its `form_data` is ''); a submitted one's stay in `form_data`.
    /// - Throws: `DatabaseError`.
    public func insert(_ db: Database, _ i: Inspection) throws {
        let snapshot = i.schemaSnapshot.jsonString()
        let shared = !i.schemaHash.isEmpty && FNV1a64.hex(Data(snapshot.utf8)) == i.schemaHash
        let tabled = i.status == .draft
        if shared {
            try db.execute(
                "INSERT OR IGNORE INTO inspection_schemas (schema_hash, snapshot) VALUES (?, ?)",
                [i.schemaHash, snapshot])
        }
        try db.execute(
            """
            INSERT INTO inspections (local_id, server_id, template_id, template_name, facility_id, facility_name,
                area_id, area_name, project_id, status,
                form_data, schema_snapshot, schema_hash, overall_score, started_at, completed_at,
                parent_inspection_local_id, parent_inspection_server_id, scheduled_inspection_server_id,
                submit_latitude, submit_longitude, notes, follow_up_required, follow_up_note, created_at, updated_at,
                \(OutboxTable.columnNames.joined(separator: ", ")))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                i.localID, i.serverID, i.templateID, i.templateName, i.facilityID, i.facilityName, i.areaID,
                i.areaName, i.projectID, i.status.rawValue, tabled ? "" : JSONValue.object(i.formData).jsonString(),
                shared ? "" : snapshot, i.schemaHash,
                i.overallScore, i.startedAt, i.completedAt, i.parentInspectionLocalID, i.parentInspectionServerID,
                i.scheduledInspectionServerID, i.submitLatitude, i.submitLongitude, i.notes, i.followUpRequired,
                i.followUpNote, i.createdAt, i.updatedAt,
            ] + i.outbox.columnValues)
        if tabled { try Self.replaceAnswerRows(db, localID: i.localID, with: i.formData, answeredAt: i.updatedAt) }
    }

    /// Writes an inspection's answers, all of them, and touches `updated_at`: a draft's as the rows of
    /// `inspection_answers` (its `form_data` ''), a submitted one's (a photo's server path) into `form_data`.
    /// - Throws: `DatabaseError`.
    public func updateAnswers(_ db: Database, localID: String, formData: [String: JSONValue], at now: Date) throws {
        try db.execute(
            "UPDATE inspections SET form_data = ?, updated_at = ? WHERE local_id = ? AND status <> 'draft'",
            [JSONValue.object(formData).jsonString(), now, localID])
        if db.changesCount == 1 { return }
        try db.execute(
            "UPDATE inspections SET form_data = '', updated_at = ? WHERE local_id = ? AND status = 'draft'",
            [now, localID])
        if db.changesCount == 1 { try Self.replaceAnswerRows(db, localID: localID, with: formData, answeredAt: now) }
    }

    /// Marks a draft submitted: final answers, score, GPS, `completed` + `pending` + `completed_at`, tries reset.
    /// The answers move from `inspection_answers` into `form_data`.
    /// - Throws: `DatabaseError`.
    public func markSubmitted(
        _ db: Database, localID: String, formData: [String: JSONValue], score: Double?,
        location: Coordinate?, at now: Date
    ) throws {
        try db.execute(
            """
            UPDATE inspections SET form_data = ?, overall_score = ?, submit_latitude = ?, submit_longitude = ?,
                status = 'completed', \(OutboxTable.freshPendingAssignments), completed_at = ?, updated_at = ?
            WHERE local_id = ? AND status = 'draft'
            """,
            [
                JSONValue.object(formData).jsonString(), score, location?.latitude, location?.longitude, now, now,
                localID,
            ])
        if db.changesCount == 1 { try Self.deleteAnswerRows(db, localID: localID) }
    }

    /// Clears `follow_up_required` on one local inspection.
    /// - Throws: `DatabaseError`.
    public func clearFollowUpFlag(_ db: Database, localID: String, at now: Date) throws {
        try db.execute(
            "UPDATE inspections SET follow_up_required = 0, updated_at = ? WHERE local_id = ?", [now, localID])
    }

    /// The local id of the inspection with `serverID`, or `nil` when it is not on this device.
    /// - Throws: `DatabaseError`.
    public func localID(_ db: Database, serverID: Int) throws -> String? {
        try db.scalar("SELECT local_id FROM inspections WHERE server_id = ?", [serverID])
    }

    /// Whether an inspection with `localID` is on this device.
    /// - Throws: `DatabaseError`.
    public func exists(_ db: Database, localID: String) throws -> Bool {
        let count: Int? = try db.scalar("SELECT count(*) FROM inspections WHERE local_id = ?", [localID])
        return count == 1
    }

    /// Flagged completed inspections of a template and facility, other than `excluding` (rule 15's fallback).
    /// - Throws: `DatabaseError`.
    public func flaggedLocalIDs(_ db: Database, templateID: Int, facilityID: Int, excluding: String) throws -> [String]
    {
        try db.fetchAll(
            """
            SELECT local_id FROM inspections WHERE template_id = ? AND facility_id = ? AND follow_up_required = 1
                AND status = 'completed' AND local_id <> ? ORDER BY local_id
            """, [templateID, facilityID, excluding]
        ).compactMap { $0["local_id"] }
    }

    /// Sets the follow-up mirror (the follow-up pull; tests).
    /// - Throws: `DatabaseError`.
    public func setFollowUp(localID: String, required: Bool, note: String?) throws {
        try queue.write { db in
            try db.execute(
                "UPDATE inspections SET follow_up_required = ?, follow_up_note = ? WHERE local_id = ?",
                [required, note, localID])
        }
    }

    /// Links an inspection to the schedule it fulfils (`scheduled_inspection_server_id`), in the caller's
    /// transaction (JQCScheduling's `resolveAndFulfillSchedule`, seed 001 rule 69).
    /// - Throws: `DatabaseError`.
    public func linkSchedule(_ db: Database, localID: String, scheduleServerID: Int) throws {
        try db.execute(
            "UPDATE inspections SET scheduled_inspection_server_id = ? WHERE local_id = ?", [scheduleServerID, localID])
    }

    /// Mirrors the server's outstanding follow-ups onto the local inspections with those server ids (seed 001
    /// §8 step 6), in the caller's transaction. When `complete`, every other synced local inspection still
    /// flagged is cleared: the server no longer lists it (the "after sync" clearing point, seed 001 §15).
    /// - Parameters:
    ///   - db: the caller's transaction.
    ///   - flagged: server id → the server's `follow_up_note`.
    ///   - complete: whether `flagged` is the whole list (not cut at the request's limit).
    /// - Returns: how many local inspections changed.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func mirrorFollowUps(_ db: Database, flagged: [Int: String?], complete: Bool) throws -> Int {
        var changed = 0
        for (serverID, note) in flagged {
            try db.execute(
                """
                UPDATE inspections SET follow_up_required = 1, follow_up_note = ?
                WHERE server_id = ? AND (follow_up_required = 0 OR follow_up_note IS NOT ?)
                """, [note, serverID, note])
            changed += db.changesCount
        }
        guard complete else { return changed }
        let stillFlagged: [Int] = try db.fetchAll(
            "SELECT server_id FROM inspections WHERE follow_up_required = 1 AND server_id IS NOT NULL"
        ).compactMap { $0["server_id"] }
        for serverID in stillFlagged where flagged[serverID] == nil {
            try db.execute("UPDATE inspections SET follow_up_required = 0 WHERE server_id = ?", [serverID])
            changed += db.changesCount
        }
        return changed
    }

    /// Deletes a draft (never a completed inspection) with its answers.
    /// - Returns: whether a draft was deleted.
    /// - Throws: `DatabaseError`.
    public func deleteDraft(_ db: Database, localID: String) throws -> Bool {
        try Self.deleteAnswerRows(db, localID: localID, draftsOnly: true)
        try db.execute("DELETE FROM inspections WHERE local_id = ? AND status = 'draft'", [localID])
        return db.changesCount == 1
    }

    /// Deletes a completed inspection that failed for good (the inspector chose to discard it).
    /// - Returns: whether a failed inspection was deleted.
    /// - Throws: `DatabaseError`.
    public func deleteFailed(_ db: Database, localID: String) throws -> Bool {
        try Self.outbox.discard(db, OutboxKey(localID))
    }

    // MARK: Outbox

    /// Stores the server's id of a sent inspection, in the caller's transaction (the push's own write beside
    /// the outbox columns, which JQCSync's driver sets).
    /// - Throws: `DatabaseError`.
    public func recordServerID(_ db: Database, localID: String, serverID: Int?) throws {
        if let serverID {
            try db.execute("UPDATE inspections SET server_id = ? WHERE local_id = ?", [serverID, localID])
            return
        }
        try db.execute(
            "UPDATE inspections SET server_id = coalesce(?, server_id) WHERE local_id = ?", [serverID, localID])
    }

    /// Marks a completed inspection synced with the server's id, in one transaction: what a successful push
    /// writes (tools and fixtures use it to stand for one).
    /// - Throws: `DatabaseError`.
    public func markSynced(localID: String, serverID: Int?, at now: Date) throws {
        try queue.write { db in
            try Self.outbox.markSynced(db, [OutboxKey(localID)], at: now)
            try recordServerID(db, localID: localID, serverID: serverID)
        }
    }

    /// Puts a failed inspection back in the outbox with its tries reset.
    /// - Returns: whether a failed inspection was found.
    /// - Throws: `DatabaseError`.
    public func retryFailed(localID: String, at now: Date) throws -> Bool {
        try queue.write { db in try Self.outbox.retry(db, OutboxKey(localID), at: now) }
    }

    /// The pending count's query: a search of `inspections_outbox` (pinned in `InspectionQueryPlanTests`).
    static let pendingCountSQL =
        "SELECT count(*) FROM inspections WHERE status = 'completed' AND sync_status = 'pending'"

    /// Completed inspections not yet synced and not failed.
    /// - Throws: `DatabaseError`.
    public func pendingCount() throws -> Int {
        try queue.read { db in
            let count: Int? = try db.scalar(Self.pendingCountSQL)
            return count ?? 0
        }
    }

    /// The failed list's query: an index search on `inspections_sync_status` (pinned by EXPLAIN QUERY PLAN in
    /// `InspectionQueryPlanTests`), never a scan of every inspection.
    static let failedSQL =
        "SELECT local_id, sync_error FROM inspections WHERE sync_status = 'failed' ORDER BY updated_at, local_id"

    /// Failed inspections, oldest first.
    /// - Throws: `DatabaseError`.
    public func failed() throws -> [FailedOutboxItem] {
        try queue.read { db in
            try db.fetchAll(Self.failedSQL).map {
                FailedOutboxItem(
                    kind: "inspection", localID: $0["local_id"] ?? "",
                    reason: $0["sync_error"] ?? "The server refused it.")
            }
        }
    }

    /// Submitted inspections that wait with a recorded reason (`deferred_reason`), oldest first (`status`;
    /// issue 18).
    /// - Throws: `DatabaseError`.
    public func waiting() throws -> [WaitingOutboxItem] {
        try queue.read { db in
            try db.fetchAll(
                "SELECT local_id, deferred_reason FROM inspections WHERE sync_status = 'pending' "
                    + "AND status <> 'draft' AND deferred_reason IS NOT NULL ORDER BY updated_at, local_id"
            ).map {
                WaitingOutboxItem(
                    kind: "inspection", localID: $0["local_id"] ?? "", reason: $0["deferred_reason"] ?? "")
            }
        }
    }

    /// The facility ids of inspections not yet synced (drafts included; seed 001 §8.4).
    /// - Throws: `DatabaseError`.
    public func facilityIDsReferencedByUnsyncedWork(db: Database) throws -> Set<Int> {
        Set(
            try db.fetchAll("SELECT DISTINCT facility_id FROM inspections WHERE sync_status IN ('pending', 'failed')")
                .compactMap { $0["facility_id"] as Int? })
    }

    static func inspection(_ row: Row) -> Inspection { inspection(row, schema: true) }

    /// An inspection from its row; with `schema` false its `schemaSnapshot` is left empty (not parsed).
    static func inspection(_ row: Row, schema: Bool) -> Inspection {
        let stored: String = row["form_data"] ?? "{}"
        let formText = stored.isEmpty ? (row["table_answers"] ?? "{}") : stored
        let inline: String = schema ? row["schema_snapshot"] ?? "[]" : "[]"
        let schemaText = inline.isEmpty ? (row["pinned_snapshot"] ?? "[]") : inline
        let created: Date = row["created_at"] ?? Date(timeIntervalSince1970: 0)
        return Inspection(
            localID: row["local_id"] ?? "", serverID: row["server_id"], templateID: row["template_id"] ?? 0,
            templateName: row["template_name"] ?? "", facilityID: row["facility_id"] ?? 0,
            facilityName: row["facility_name"] ?? "", areaID: row["area_id"], areaName: row["area_name"],
            projectID: row["project_id"],
            status: InspectionStatus(rawValue: row["status"] ?? "") ?? .draft,
            outbox: OutboxState(row: row),
            formData: (try? JSONValue.parse(formText))?.objectValue ?? [:],
            schemaSnapshot: (try? JSONValue.parse(schemaText)) ?? .array([]), schemaHash: row["schema_hash"] ?? "",
            overallScore: row["overall_score"], startedAt: row["started_at"] ?? created,
            completedAt: row["completed_at"], parentInspectionLocalID: row["parent_inspection_local_id"],
            parentInspectionServerID: row["parent_inspection_server_id"],
            scheduledInspectionServerID: row["scheduled_inspection_server_id"],
            submitLatitude: row["submit_latitude"], submitLongitude: row["submit_longitude"], notes: row["notes"],
            followUpRequired: row["follow_up_required"] ?? false, followUpNote: row["follow_up_note"],
            createdAt: created, updatedAt: max(row["updated_at"] ?? created, Self.answerTime(row) ?? created))
    }

    /// A row's `answered_at`: INTEGER milliseconds (``Foundation/Date/databaseMilliseconds``; every answer
    /// written since migration `inspections/6-answer-times`), the same digits as text (written into the older
    /// TEXT column), or the date text an older version wrote; `nil` when NULL or unreadable.
    static func answerTime(_ row: Row) -> Date? {
        answerMilliseconds(row).map(Date.init(databaseMilliseconds:))
    }

    /// ``answerTime(_:)`` as the INTEGER column holds it: the millisecond, read exactly from any of its forms.
    static func answerMilliseconds(_ row: Row) -> Int64? {
        switch row.databaseValue("answered_at") {
        case .integer(let milliseconds): milliseconds
        // Digits: milliseconds written into the older TEXT column (migration `4-answers` run by this code, just
        // before `6-answer-times`); anything else is the store's date text.
        case .text(let text): Int64(text) ?? Date.databaseMilliseconds(text: text)
        default: nil
        }
    }

    /// A list line from a row of ``listingSQL(draftsOnly:)`` (the same defaults as ``inspection(_:)``).
    static func listing(_ row: Row) -> InspectionListing {
        InspectionListing(
            localID: row["local_id"] ?? "", serverID: row["server_id"], templateID: row["template_id"] ?? 0,
            templateName: row["template_name"] ?? "", facilityID: row["facility_id"] ?? 0,
            facilityName: row["facility_name"] ?? "", areaID: row["area_id"], areaName: row["area_name"],
            status: InspectionStatus(rawValue: row["status"] ?? "") ?? .draft, outbox: OutboxState(row: row),
            schemaHash: row["schema_hash"] ?? "", overallScore: row["overall_score"],
            createdAt: row["created_at"] ?? Date(timeIntervalSince1970: 0))
    }
}

extension InspectionStore: FacilityReferenceSource {}
