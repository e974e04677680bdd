import Foundation
import JQCKit
import JQCStorage

/// The writes the local-write benchmark drives (SPEC.md §6: "answer a field, save a draft"; issue 17's growth
/// rows), by form size and the index of a draft of that form. ``EngineWriteWorkload`` drives the real engine
/// (`InspectionService.answer/save` on AppComposition's store); the bare commit is ``EngineBenchSQL``'s.
protocol InspectionWriteWorkload {
    /// Answers one field of one draft of the `fields`-field form: a rating (typed) when `rating` is given,
    /// else a text field with the shell's words.
    func answer(fields: Int, draft: Int, field: Int, rating: Int?) throws
    /// Saves one draft (the Save Draft button: re-saves the stored answers, touches `updated_at`).
    func saveDraft(fields: Int, draft: Int) throws
    /// The floor: one single-row INSERT in its own transaction on the same connection.
    func bareCommit() throws
}

/// SQL the engine write benchmark runs beside the engine, on AppComposition's own store (same file, same
/// connection, same durability mode): the bare single-row commit.
enum EngineBenchSQL {
    /// Creates the bare-commit table (benchmark only; the app never has it) and checkpoints the WAL the
    /// population wrote, so no measured commit pays for it.
    static func prepare(_ queue: DatabaseQueue) throws {
        try queue.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS bench_bare (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
        }
        try queue.writeWithoutTransaction { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// One single-row INSERT in its own transaction.
    static func bareCommit(_ queue: DatabaseQueue, value: String) throws {
        // One statement in its own (implicit) transaction: the cheapest single-row commit SQLite makes.
        try queue.writeWithoutTransaction { db in try db.execute("INSERT INTO bench_bare (value) VALUES (?)", [value]) }
    }

    /// Forgets the server ids of synced inspections before the memory benchmark moves the engine to a fresh dev
    /// server, whose ids start again from the seed's (the local `server_id` column is UNIQUE).
    static func forgetServerIDs(_ queue: DatabaseQueue) throws {
        try queue.write { db in
            try db.execute("UPDATE inspections SET server_id = NULL WHERE sync_status = 'synced'")
        }
    }
}

/// A stand-in for JQCInspections' table, kept for the cold-start benchmark's data directory: 10,000 rows
/// shaped like the app's inspections (form data as JSON of ~40 answers, the outbox columns of FEATURES.md
/// item 3, the usual indexes).
final class BenchInspectionStore {
    let queue: DatabaseQueue

    /// Opens the store at `path` in the given durability mode.
    init(path: String, synchronous: DatabaseConfiguration.Synchronous) throws {
        queue = try DatabaseQueue(path: path, configuration: DatabaseConfiguration(synchronous: synchronous))
    }

    /// Creates the tables and fills them with `rows` inspections (one transaction) unless they exist.
    func populate(rows: Int) throws {
        try queue.write { db in
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS bench_inspections (
                    id INTEGER PRIMARY KEY, local_id TEXT NOT NULL UNIQUE, server_id INTEGER,
                    facility_id INTEGER NOT NULL, area_id INTEGER, template_id INTEGER NOT NULL,
                    status TEXT NOT NULL DEFAULT 'draft', form_data TEXT NOT NULL DEFAULT '{}',
                    notes TEXT NOT NULL DEFAULT '', score REAL, inspection_date TEXT NOT NULL,
                    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, submitted_at TEXT,
                    sync_status TEXT NOT NULL DEFAULT 'pending', sync_attempts INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at TEXT, sync_error TEXT);
                CREATE INDEX IF NOT EXISTS bench_inspections_sync ON bench_inspections(sync_status);
                CREATE INDEX IF NOT EXISTS bench_inspections_facility
                    ON bench_inspections(facility_id, inspection_date);
                CREATE TABLE IF NOT EXISTS bench_bare (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
                """)
            let existing: Int64 = try db.scalar("SELECT count(*) FROM bench_inspections") ?? 0
            guard existing < Int64(rows) else { return }
            var random = SeededGenerator(seed: 2026)
            for index in Int(existing)..<rows {
                let stamp = "2026-11-\(String(format: "%02d", 1 + index % 28))T09:30:00-05:00"
                try db.execute(
                    """
                    INSERT INTO bench_inspections (local_id, server_id, facility_id, area_id, template_id,
                        status, form_data, notes, score, inspection_date, created_at, updated_at, submitted_at,
                        sync_status)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        "bench-\(index)", index % 3 == 0 ? nil : Int64(index + 1), Int64(1 + index % 40),
                        Int64(1 + index % 200), Int64(1 + index % 6), index % 10 == 0 ? "draft" : "completed",
                        Self.formData(&random).jsonString(), "Routine inspection.", Double(index % 100),
                        String(stamp.prefix(10)), stamp, stamp, index % 10 == 0 ? nil : stamp,
                        index % 10 == 0 ? "pending" : "synced",
                    ])
            }
        }
    }

    /// About 40 answers: ratings, pass/fail, counts, short notes (about 1.3 KB of JSON).
    static func formData(_ random: inout SeededGenerator) -> JSONValue {
        var answers: [String: JSONValue] = [:]
        for field in 1...40 {
            switch field % 4 {
            case 0: answers["\(field)"] = .int(Int64(random.next() % 5) + 1)
            case 1: answers["\(field)"] = .string(random.next() % 2 == 0 ? "Pass" : "Fail")
            case 2: answers["\(field)"] = .int(Int64(random.next() % 12))
            default: answers["\(field)"] = .string("Wiped down; restocked \(random.next() % 9) items.")
            }
        }
        return .object(answers)
    }
}
