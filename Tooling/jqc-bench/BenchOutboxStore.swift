import Foundation
import JQCKit
import JQCStorage

/// A pending issue read from the stand-in outbox (a value, never a live row).
struct PendingIssue {
    let id: Int64
    let localID: String
    let facilityID: Int64
    let severity: String
    let details: String
}

/// A stand-in outbox of issues with the columns of FEATURES.md item 3, for the memory benchmark's push
/// loop until JQCIssues' own store and stage land (seam `SyncBench.memory`).
final class BenchOutboxStore {
    let queue: DatabaseQueue

    init(path: String) throws {
        queue = try DatabaseQueue(path: path, configuration: DatabaseConfiguration(synchronous: .full))
    }

    /// Creates the table with `count` pending issues (one transaction).
    func fill(count: Int, facilityID: Int64) throws {
        try queue.write { db in
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS bench_outbox_issues (
                    id INTEGER PRIMARY KEY, local_id TEXT NOT NULL UNIQUE, facility_id INTEGER NOT NULL,
                    severity TEXT NOT NULL, description TEXT NOT NULL, server_id INTEGER,
                    sync_status TEXT NOT NULL DEFAULT 'pending', sync_attempts INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at TEXT, sync_error TEXT);
                CREATE INDEX IF NOT EXISTS bench_outbox_issues_sync ON bench_outbox_issues(sync_status, id);
                """)
            for index in 0..<count {
                try db.execute(
                    "INSERT INTO bench_outbox_issues (local_id, facility_id, severity, description) VALUES (?, ?, ?, ?)",
                    ["mem-\(index)", facilityID, "low", "Paper towel dispenser empty (benchmark item \(index))."])
            }
        }
    }

    /// The next `limit` pending issues in id order.
    func pending(limit: Int) throws -> [PendingIssue] {
        try queue.read { db in
            try db.fetchAll(
                """
                SELECT id, local_id, facility_id, severity, description FROM bench_outbox_issues
                WHERE sync_status = 'pending' ORDER BY id LIMIT ?
                """, [limit]
            ).map { row in
                PendingIssue(
                    id: row["id"] ?? 0, localID: row["local_id"] ?? "", facilityID: row["facility_id"] ?? 0,
                    severity: row["severity"] ?? "low", details: row["description"] ?? "")
            }
        }
    }

    /// Marks one issue synced with its server id.
    func markSynced(_ id: Int64, serverID: Int64?) throws {
        try queue.write { db in
            try db.execute(
                """
                UPDATE bench_outbox_issues SET sync_status = 'synced', server_id = ?, last_attempt_at = ?,
                    sync_attempts = sync_attempts + 1
                WHERE id = ?
                """, [serverID, DateFormats.instantString(Date()), id])
        }
    }
}
