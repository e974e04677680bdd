import Foundation
import JQCKit
import JQCStorage
import JQCSync

/// The issues feature's tables (namespace `issues`; FEATURES.md item 1). New columns always get defaults
/// (rule 8); the server's optional fields are nullable (rule 46). Both tables are outboxes (``IssueStore/outbox``,
/// ``IssueStore/editsOutbox``) whose outbox columns are JQCStorage's, added to older stores by its migration.
///
/// `issues.inspection_local_id` is `""` for standalone and server-pulled issues (rules 31, 44), so it cannot
/// be a foreign key; the relation to the inspection is kept by ``IssueService``'s draft-deletion hook
/// (deleting a draft deletes its issues in the same transaction). `issue_edits.issue_local_id` is a foreign key
/// to its issue (rule 37), deleted with it.
public enum IssuesSchema {
    /// The migrations' namespace.
    public static let namespace = "issues"

    /// Registers `issues/1-create`.
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: namespace, "1-create") { db in
            try db.execute(
                """
                CREATE TABLE issues (
                    local_id TEXT PRIMARY KEY NOT NULL,
                    server_id INTEGER UNIQUE,
                    inspection_local_id TEXT NOT NULL DEFAULT '',
                    inspection_server_id INTEGER,
                    facility_id INTEGER NOT NULL,
                    facility_name TEXT,
                    area_id INTEGER,
                    area_name TEXT,
                    severity TEXT NOT NULL DEFAULT 'medium',
                    description TEXT NOT NULL DEFAULT '',
                    status TEXT NOT NULL DEFAULT 'open',
                    photo_local_paths TEXT NOT NULL DEFAULT '[]',
                    photo_server_paths TEXT NOT NULL DEFAULT '[]',
                    photo_server_urls TEXT NOT NULL DEFAULT '[]',
                    result_photos TEXT NOT NULL DEFAULT '[]',
                    result_notes TEXT,
                    verified_at TEXT,
                    verification_note TEXT,
                    reported_by_name TEXT,
                    assigned_to_name TEXT,
                    handler_type TEXT,
                    handler_label TEXT,
                    facility_handler_name TEXT,
                    facility_handler_contact TEXT,
                    facility_handler_notes TEXT,
                    vendor_name TEXT,
                    vendor_contact TEXT,
                    vendor_notes TEXT,
                    server_created_at TEXT,
                    server_updated_at TEXT,
                    assembling INTEGER NOT NULL DEFAULT 0,
                    sync_status TEXT NOT NULL DEFAULT 'pending'
                        CHECK (sync_status IN ('pending', 'synced', 'failed')),
                    sync_attempts INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at TEXT,
                    sync_error TEXT,
                    created_at TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                )
                """)
            try db.execute("CREATE INDEX issues_outbox ON issues(sync_status, created_at)")
            try db.execute("CREATE INDEX issues_inspection ON issues(inspection_local_id)")
            try db.execute(
                """
                CREATE TABLE issue_edits (
                    issue_local_id TEXT NOT NULL REFERENCES issues(local_id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('status', 'handler')),
                    body TEXT NOT NULL,
                    sync_attempts INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at TEXT,
                    sync_error TEXT,
                    created_at TEXT NOT NULL,
                    PRIMARY KEY (issue_local_id, kind)
                )
                """)
        }
        IssueStore.outbox.registerMigrations(namespace: namespace, in: &migrator)
        IssueStore.editsOutbox.registerMigrations(namespace: namespace, in: &migrator)
        migrator.registerMigration(namespace: namespace, "2-pull-etag") { db in
            // The assigned-issues list as last pulled, with its ETag (issue 17, conditional requests); erased with the
            // server-known issues (logout, server or user switch), so a 304 never stands for an empty cache.
            try db.execute(
                """
                CREATE TABLE issues_pull_state (
                    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                    etag TEXT NOT NULL,
                    reply TEXT NOT NULL
                )
                """)
        }
    }
}

/// All SQL of the issues feature (lint: SQL only in `*Store.swift`). Methods taking a `Database` run inside
/// the caller's transaction; the others open their own. Everything returned is a value (rule 68).
public final class IssueStore: Sendable {
    /// The store.
    public let queue: DatabaseQueue

    /// The issues outbox: record lifecycle, `updated_at` kept current by every outbox write.
    public static let outbox = OutboxTable("issues", key: ["local_id"], touching: "updated_at")
    /// The queued status and handler edits: a queue (an edit is deleted once sent or refused).
    public static let editsOutbox = OutboxTable("issue_edits", key: ["issue_local_id", "kind"], lifecycle: .queue)

    /// A store over `queue` (migrated with ``IssuesSchema``).
    public init(queue: DatabaseQueue) { self.queue = queue }

    // MARK: Reads

    /// One issue by local id, or `nil`.
    /// - Throws: `DatabaseError`.
    public func issue(_ db: Database, localID: String) throws -> Issue? {
        try db.fetchOne("SELECT * FROM issues WHERE local_id = ?", [localID]).map(Self.issue)
    }

    /// One issue by server id, or `nil`.
    /// - Throws: `DatabaseError`.
    public func issue(_ db: Database, serverID: Int) throws -> Issue? {
        try db.fetchOne("SELECT * FROM issues WHERE server_id = ?", [serverID]).map(Self.issue)
    }

    /// Every issue (not the ones still being assembled), newest first by ``Issue/listedAt``: the server's
    /// `created_at` for an issue the server has, the local creation time for one it has not (issue 18; a
    /// pull inserts in reply order, so the local insert time is not the issue's age). Ties keep the later
    /// insert first.
    /// - Throws: `DatabaseError`.
    public func all() throws -> [Issue] {
        let rows = try queue.read { db in
            try db.fetchAll("SELECT * FROM issues WHERE assembling = 0 ORDER BY rowid DESC").map(Self.issue)
        }
        // Stable on ties: the index (insert order, newest first) breaks them.
        return rows.enumerated().sorted { left, right in
            let (l, r) = (left.element.listedAt, right.element.listedAt)
            return l != r ? l > r : left.offset < right.offset
        }.map(\.element)
    }

    /// Issues waiting for the outbox (pending, fully assembled), oldest first.
    /// - Throws: `DatabaseError`.
    public func pendingSubmissions() throws -> [Issue] {
        try queue.read { db in
            try db.fetchAll(
                "SELECT * FROM issues WHERE sync_status = 'pending' AND assembling = 0 ORDER BY created_at, rowid"
            ).map(Self.issue)
        }
    }

    /// The issues flagged in an inspection.
    /// - Throws: `DatabaseError`.
    public func issues(_ db: Database, inspectionLocalID: String) throws -> [Issue] {
        try db.fetchAll(
            "SELECT * FROM issues WHERE inspection_local_id = ? ORDER BY created_at, rowid",
            [inspectionLocalID]
        ).map(Self.issue)
    }

    // MARK: Writes

    /// Inserts a new issue (`assembling` while its photos are being imported).
    /// - Throws: `DatabaseError`.
    public func insert(_ db: Database, _ i: Issue, assembling: Bool = false) throws {
        try db.execute(
            """
            INSERT INTO issues (local_id, server_id, inspection_local_id, inspection_server_id, facility_id,
                facility_name, area_id, area_name, severity, description, status, photo_local_paths,
                photo_server_paths, photo_server_urls, result_photos, result_notes, verified_at, verification_note,
                reported_by_name, assigned_to_name, handler_type, handler_label, facility_handler_name,
                facility_handler_contact, facility_handler_notes, vendor_name, vendor_contact, vendor_notes,
                server_created_at, server_updated_at, assembling, created_at, updated_at,
                \(OutboxTable.columnNames.joined(separator: ", ")))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                ?, ?, ?, ?, ?)
            """,
            [
                i.localID, i.serverID, i.inspectionLocalID, i.inspectionServerID, i.facilityID, i.facilityName,
                i.areaID, i.areaName, i.severity.rawValue, i.description, i.status.rawValue,
                Self.text(i.photoLocalPaths),
                Self.text(i.photoServerPaths), Self.text(i.photoServerURLs), Self.text(i.resultPhotos),
                i.resultNotes, i.verifiedAt, i.verificationNote, i.reportedByName, i.assignedToName,
                i.handlerType?.rawValue,
                i.handlerLabel, i.facilityHandlerName, i.facilityHandlerContact, i.facilityHandlerNotes,
                i.vendorName, i.vendorContact, i.vendorNotes, i.serverCreatedAt, i.serverUpdatedAt, assembling,
                i.createdAt, i.updatedAt,
            ] + i.outbox.columnValues)
    }

    /// Writes the server's fields onto an issue (a pull or a PATCH reply): everything the server sends is
    /// kept; evidence = `photo_path` + `mobile_photo_paths` (rule 33). `keepStatus`/`keepHandler` leave the
    /// local mirror of a queued edit alone (a refresh never overwrites an edit still queued); `keepPhotos`
    /// keeps the photo paths of an issue still being sent (its extra photos are not on the server yet).
    /// - Throws: `DatabaseError`.
    func applyServerFields(
        _ db: Database, localID: String, _ s: APIIssue, keepStatus: Bool, keepHandler: Bool, keepPhotos: Bool,
        at now: Date
    ) throws {
        var sets: [String] = [
            "server_id = ?", "facility_name = coalesce(?, facility_name)", "area_name = coalesce(?, area_name)",
            "result_photos = ?", "result_notes = ?",
            "verified_at = ?", "verification_note = ?", "reported_by_name = ?", "assigned_to_name = ?",
            "server_created_at = ?", "server_updated_at = ?", "updated_at = ?",
        ]
        var arguments: StatementArguments = [
            s.id, s.facilityName, s.areaName, Self.text(s.resultPhotos ?? []), s.resultNotes, s.verifiedAt,
            s.verificationNote, s.reportedByName, s.assignedToName, s.createdAt, s.updatedAt, now,
        ]
        if !keepPhotos {
            sets += ["photo_server_paths = ?", "photo_server_urls = ?"]
            arguments += [Self.text(s.evidencePaths), Self.text(s.photoUrls ?? [])]
        }
        if let facility = s.facilityId {
            sets.append("facility_id = ?")
            arguments.append(facility)
        }
        sets.append("area_id = ?")
        arguments.append(s.areaId)
        if let severity = s.severity {
            sets.append("severity = ?")
            arguments.append(severity)
        }
        if let description = s.description {
            sets.append("description = ?")
            arguments.append(description)
        }
        if let inspection = s.inspectionId {
            sets.append("inspection_server_id = ?")
            arguments.append(inspection)
        }
        if !keepStatus, let status = s.status {
            sets.append("status = ?")
            arguments.append(status)
        }
        if !keepHandler {
            sets += [
                "handler_type = ?", "handler_label = ?", "facility_handler_name = ?", "facility_handler_contact = ?",
                "facility_handler_notes = ?", "vendor_name = ?", "vendor_contact = ?", "vendor_notes = ?",
            ]
            for value in [
                s.handlerType, s.handlerLabel, s.facilityHandlerName, s.facilityHandlerContact,
                s.facilityHandlerNotes, s.vendorName, s.vendorContact, s.vendorNotes,
            ] { arguments.append(value) }
        }
        arguments.append(localID)
        try db.execute("UPDATE issues SET \(sets.joined(separator: ", ")) WHERE local_id = ?", arguments)
    }

    /// Appends a local photo file to an issue (in the photo's import transaction).
    /// - Throws: `DatabaseError`.
    func appendLocalPhoto(_ db: Database, localID: String, path: String) throws {
        guard let issue = try issue(db, localID: localID) else { return }
        try db.execute(
            "UPDATE issues SET photo_local_paths = ? WHERE local_id = ?",
            [Self.text(issue.photoLocalPaths + [path]), localID])
    }

    /// Appends an uploaded photo's server path (idempotent: a path already there is not added twice).
    /// - Throws: `DatabaseError`.
    func appendServerPhoto(_ db: Database, localID: String, path: String, url: String?) throws {
        guard let issue = try issue(db, localID: localID), !issue.photoServerPaths.contains(path) else { return }
        var urls = issue.photoServerURLs
        if urls.count == issue.photoServerPaths.count, let url { urls.append(url) }
        try db.execute(
            "UPDATE issues SET photo_server_paths = ?, photo_server_urls = ? WHERE local_id = ?",
            [Self.text(issue.photoServerPaths + [path]), Self.text(urls), localID])
    }

    /// The issue's photos are all imported: it joins the outbox.
    /// - Throws: `DatabaseError`.
    func finishAssembling(_ db: Database, localID: String) throws {
        try db.execute("UPDATE issues SET assembling = 0 WHERE local_id = ?", [localID])
    }

    /// Sets the local status mirror.
    /// - Throws: `DatabaseError`.
    func setStatus(_ db: Database, localID: String, status: String, at now: Date) throws {
        try db.execute("UPDATE issues SET status = ?, updated_at = ? WHERE local_id = ?", [status, now, localID])
    }

    /// Sets the local handler mirror.
    /// - Throws: `DatabaseError`.
    func setHandler(_ db: Database, localID: String, _ h: IssueHandlerUpdate, at now: Date) throws {
        let facility = h.type == .facility, vendor = h.type == .vendor
        try db.execute(
            """
            UPDATE issues SET handler_type = ?, handler_label = ?, facility_handler_name = ?,
                facility_handler_contact = ?, facility_handler_notes = ?, vendor_name = ?, vendor_contact = ?,
                vendor_notes = ?, updated_at = ?
            WHERE local_id = ?
            """,
            [
                h.type.rawValue, h.label, facility ? h.name : nil, facility ? h.contact : nil, facility ? h.notes : nil,
                vendor ? h.name : nil, vendor ? h.contact : nil, vendor ? h.notes : nil, now, localID,
            ])
    }

    /// Records the server id after the POST (the issue stays pending until its extra photos are sent).
    /// - Throws: `DatabaseError`.
    func markCreated(localID: String, serverID: Int, inspectionServerID: Int?, at now: Date) throws {
        try queue.write { db in
            try markCreated(db, localID: localID, serverID: serverID, inspectionServerID: inspectionServerID, at: now)
        }
    }

    /// ``markCreated(localID:serverID:inspectionServerID:at:)`` in the caller's transaction.
    /// - Throws: `DatabaseError`.
    func markCreated(_ db: Database, localID: String, serverID: Int, inspectionServerID: Int?, at now: Date) throws {
        try db.execute(
            """
            UPDATE issues SET server_id = ?, inspection_server_id = coalesce(?, inspection_server_id), updated_at = ?
            WHERE local_id = ?
            """, [serverID, inspectionServerID, now, localID])
    }

    /// A sent issue's own write beside the outbox columns: its local photo paths cleared (rule 43), in the
    /// caller's transaction.
    /// - Throws: `DatabaseError`.
    func recordSynced(_ db: Database, localID: String) throws {
        try db.execute("UPDATE issues SET photo_local_paths = '[]' WHERE local_id = ?", [localID])
    }

    /// Marks an issue synced and clears its local photo paths (rule 43), in one transaction: what a successful
    /// push writes (fixtures use it to stand for one).
    /// - Throws: `DatabaseError`.
    func markSynced(localID: String, at now: Date) throws {
        try queue.write { db in
            try Self.outbox.markSynced(db, [OutboxKey(localID)], at: now)
            try recordSynced(db, localID: localID)
        }
    }

    /// Puts a failed issue back in the outbox with its tries reset.
    /// - Returns: whether a failed issue was found.
    /// - Throws: `DatabaseError`.
    func retryFailed(localID: String, at now: Date) throws -> Bool {
        try queue.write { db in try Self.outbox.retry(db, OutboxKey(localID), at: now) }
    }

    /// Deletes one issue (its queued edits go with it).
    /// - Throws: `DatabaseError`.
    func delete(_ db: Database, localID: String) throws {
        try db.execute("DELETE FROM issues WHERE local_id = ?", [localID])
    }

    /// Deletes issues still being assembled that were left behind (a crash during `issue new`), older
    /// than `before`.
    /// - Returns: their local ids.
    /// - Throws: `DatabaseError`.
    func deleteAbandoned(_ db: Database, before: Date) throws -> [String] {
        let ids: [String] = try db.fetchAll(
            "SELECT local_id FROM issues WHERE assembling = 1 AND created_at < ?", [before]
        ).compactMap { $0["local_id"] }
        for id in ids { try delete(db, localID: id) }
        return ids
    }

    // MARK: Outbox report

    /// Issues not yet synced and not failed (SHELL.md `status`).
    /// - Throws: `DatabaseError`.
    public func pendingCount() throws -> Int {
        try queue.read { db in
            try db.scalar("SELECT count(*) FROM issues WHERE sync_status = 'pending' AND assembling = 0") ?? 0
        }
    }

    /// Failed issues, oldest first.
    /// - Throws: `DatabaseError`.
    public func failed() throws -> [FailedOutboxItem] {
        try queue.read { db in
            try db.fetchAll(
                "SELECT local_id, sync_error FROM issues WHERE sync_status = 'failed' ORDER BY updated_at, local_id"
            ).map {
                FailedOutboxItem(
                    kind: "issue", localID: $0["local_id"] ?? "",
                    reason: $0["sync_error"] ?? "The server refused it.")
            }
        }
    }

    /// Pending issues that wait with a recorded reason (`deferred_reason`), oldest first (`status`; issue 18).
    /// - Throws: `DatabaseError`.
    public func waiting() throws -> [WaitingOutboxItem] {
        try queue.read { db in
            try db.fetchAll(
                "SELECT local_id, deferred_reason FROM issues WHERE sync_status = 'pending' AND assembling = 0 "
                    + "AND deferred_reason IS NOT NULL ORDER BY created_at, rowid"
            ).map {
                WaitingOutboxItem(kind: "issue", localID: $0["local_id"] ?? "", reason: $0["deferred_reason"] ?? "")
            }
        }
    }

    /// The facility ids of issues not yet synced (seed 001 §8.4: they keep a pruned facility, inactive).
    /// - Throws: `DatabaseError`.
    public func facilityIDsReferencedByUnsyncedWork(db: Database) throws -> Set<Int> {
        Set(
            try db.fetchAll("SELECT DISTINCT facility_id FROM issues WHERE sync_status IN ('pending', 'failed')")
                .compactMap { $0["facility_id"] as Int? })
    }

    // MARK: Decoding

    static func text(_ list: [String]) -> String { JSONValue.array(list.map(JSONValue.string)).jsonString() }

    static func list(_ text: String?) -> [String] {
        guard let text, let parsed = try? JSONValue.parse(text) else { return [] }
        return parsed.arrayValue?.compactMap(\.stringValue) ?? []
    }

    static func issue(_ row: Row) -> Issue {
        let created: Date = row["created_at"] ?? Date(timeIntervalSince1970: 0)
        return Issue(
            localID: row["local_id"] ?? "", serverID: row["server_id"],
            inspectionLocalID: row["inspection_local_id"] ?? "", inspectionServerID: row["inspection_server_id"],
            facilityID: row["facility_id"] ?? 0, facilityName: row["facility_name"], areaID: row["area_id"],
            areaName: row["area_name"], severity: IssueSeverity(rawValue: row["severity"] ?? ""),
            description: row["description"] ?? "",
            status: IssueStatus(rawValue: row["status"] ?? "open"), photoLocalPaths: list(row["photo_local_paths"]),
            photoServerPaths: list(row["photo_server_paths"]), photoServerURLs: list(row["photo_server_urls"]),
            resultPhotos: list(row["result_photos"]), resultNotes: row["result_notes"],
            verifiedAt: row["verified_at"], verificationNote: row["verification_note"],
            reportedByName: row["reported_by_name"], assignedToName: row["assigned_to_name"],
            handlerType: (row["handler_type"] as String?).map(IssueHandlerType.init(rawValue:)),
            handlerLabel: row["handler_label"],
            facilityHandlerName: row["facility_handler_name"], facilityHandlerContact: row["facility_handler_contact"],
            facilityHandlerNotes: row["facility_handler_notes"], vendorName: row["vendor_name"],
            vendorContact: row["vendor_contact"], vendorNotes: row["vendor_notes"],
            serverCreatedAt: row["server_created_at"], serverUpdatedAt: row["server_updated_at"],
            outbox: OutboxState(row: row), createdAt: created, updatedAt: row["updated_at"] ?? created)
    }
}
