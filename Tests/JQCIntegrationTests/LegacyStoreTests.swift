import Foundation
import JQCComposition
import JQCKit
import JQCNotifications
import JQCStorage
import JQCTestSupport
import Testing

/// A data directory written before issue 16 (the outbox columns hand-written per table, the mark-read queue
/// in `notifications`, photo owner kinds a closed list), with one pending item of every kind: opening it
/// with this build migrates it without losing any, and a pass sends every one.
@Suite("A store written by the old schema migrates its whole outbox")
struct LegacyStoreTests {
    /// The four outbox tables exactly as their `1-create` migrations made them before issue 16.
    static let oldSchema: [String] = [
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
        """,
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
        """,
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
        """,
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
        """,
        """
        CREATE TABLE notifications (
            server_id INTEGER PRIMARY KEY NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            body TEXT NOT NULL DEFAULT '',
            link TEXT,
            event_type TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL DEFAULT '',
            created_instant TEXT,
            read INTEGER NOT NULL DEFAULT 0,
            read_pending_push INTEGER NOT NULL DEFAULT 0,
            read_push_attempts INTEGER NOT NULL DEFAULT 0,
            read_push_last_attempt_at TEXT,
            read_push_error TEXT,
            received_at TEXT
        );
        CREATE INDEX notifications_newest_first ON notifications (created_instant DESC, server_id DESC);
        CREATE TABLE notification_cursor (
            id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
            created_at TEXT NOT NULL,
            created_instant TEXT NOT NULL
        );
        CREATE TABLE dashboard_stats (
            id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
            stats TEXT NOT NULL,
            fetched_at TEXT NOT NULL
        )
        """,
    ]

    /// The migrations a store of that build had applied for those tables.
    static let oldKeys = ["photos/1-create", "inspections/1-create", "issues/1-create", "notifications/1-create"]

    @Test("every pending item survives the migration with its tries, then lands on the server in one pass")
    func pendingItemsSurvive() async throws {
        let world = try TestApp()
        let legacy = TemporaryDirectory(prefix: "jqc-legacy")
        let directory = legacy.url
        let inspectionID = "legacy-inspection", issueID = "legacy-issue"
        let photoID = UUID()
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("photos"), withIntermediateDirectories: true)
        let photoFile = try jpeg(in: directory.appendingPathComponent("photos"), "\(photoID.uuidString).jpg", seed: 4)
        let then = Date(timeIntervalSince1970: 1_780_000_000)  // whole seconds: the store keeps milliseconds

        // The old build's store, with its items.
        do {
            let old = try DatabaseQueue(path: directory.appendingPathComponent("jqc.sqlite").path)
            try old.write { db in
                for statement in Self.oldSchema { try db.execute(statement) }
                try db.execute("CREATE TABLE jqc_migrations (key TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)")
                for key in Self.oldKeys {
                    try db.execute("INSERT INTO jqc_migrations (key, applied_at) VALUES (?, ?)", [key, then])
                }
                try db.execute(
                    """
                    INSERT INTO inspections (local_id, template_id, template_name, facility_id, facility_name, area_id,
                        status, sync_status, sync_attempts, last_attempt_at, sync_error, form_data, schema_snapshot,
                        started_at, completed_at, created_at, updated_at)
                    VALUES (?, 3, 'Restroom QC', 11, 'Main Courthouse', 111, 'completed', 'pending', 2, ?,
                        'The server had a problem.', ?, '[]', ?, ?, ?, ?)
                    """,
                    [
                        inspectionID, then, #"{"2":4,"9":"local://photos/\#(photoID.uuidString).jpg"}"#, then, then,
                        then, then,
                    ])
                try db.execute(
                    """
                    INSERT INTO pending_photos (id, owner_kind, owner_local_id, field_id, file_name, entity_type,
                        captured_at, created_at, width, height, bytes)
                    VALUES (?, 'inspection', ?, '9', ?, 'inspection', ?, ?, 64, 48, ?)
                    """,
                    [
                        photoID.uuidString, inspectionID, photoFile.lastPathComponent, then, then,
                        (try Data(contentsOf: photoFile)).count,
                    ])
                try db.execute(
                    """
                    INSERT INTO issues (local_id, facility_id, facility_name, area_id, severity, description, status,
                        sync_status, created_at, updated_at)
                    VALUES (?, 21, 'Clinic A', 212, 'medium', 'Dryer not working', 'in_progress', 'pending', ?, ?)
                    """, [issueID, then, then])
                try db.execute(
                    "INSERT INTO issue_edits (issue_local_id, kind, body, sync_attempts, created_at) VALUES (?, ?, ?, 1, ?)",
                    [issueID, "status", #"{"status":"in_progress"}"#, then])
                try db.execute(
                    """
                    INSERT INTO notifications (server_id, title, created_at, read, read_pending_push, read_push_attempts,
                        read_push_last_attempt_at)
                    VALUES (3001, 'Seeded', '2026-01-01T00:00:00Z', 1, 1, 1, ?)
                    """, [then])
            }
            old.close()
        }

        // This build opens it: everything still pending, tries kept.
        let app = try TestApp.makeRoot(directory: directory, selection: world.selection, clock: world.clock)
        let pending = try app.outboxStatus().pending
        #expect(pending["inspections"] == 1 && pending["photos"] == 1 && pending["issues"] == 1)
        #expect(pending.values.reduce(0, +) == 5, "\(pending)")  // and the queued edit and mark-read
        #expect(try app.inspections.inspection(localID: inspectionID).syncAttempts == 2)
        let markRead = try #require(try app.notifications.queuedMarkRead())
        #expect(markRead.ids == [3001] && markRead.attempts == 1 && markRead.lastAttemptAt == then)
        // Attributed as issue 20 says: nobody was signed in, so the unknown author, for the recorded server;
        // the next to sign in (alex, below) is the data directory's last signed-in user and sends them.
        let legacyAuthor = OutboxAuthor(server: app.serverIdentity())
        #expect(markRead.author == legacyAuthor)
        #expect(try app.inspections.inspection(localID: inspectionID).outbox.author == legacyAuthor)
        #expect(try app.photos.photo(id: photoID)?.outbox.author == legacyAuthor)
        #expect(try app.issues.store.queuedEdits().map(\.attempts) == [1])
        #expect(try app.photos.photo(id: photoID)?.syncStatus == .pending)

        // One pass sends every item.
        _ = try await app.api.login(username: "alex", password: "inspect-demo")
        let report = try await app.sync.sync(explicit: true)
        #expect(report.stoppedBy == nil)
        #expect(try app.outboxStatus().pending.values.allSatisfy { $0 == 0 })
        #expect(try app.outboxStatus().failed.isEmpty)
        let state = try world.adminState()
        let inspection = try #require(
            state["inspections"]?.arrayValue?.first { $0["local_id"] == .string(inspectionID) })
        #expect(inspection["form_data"]?["9"]?.stringValue?.hasPrefix("uploads/inspection_photos/") == true)
        let issue = try #require(state["issues"]?.arrayValue?.first { $0["local_id"] == .string(issueID) })
        #expect(issue["status"] == "in_progress")
        #expect(state["notifications"]?.arrayValue?.first { $0["id"] == 3001 }?["read"] == true)
    }
}
