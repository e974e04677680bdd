import Foundation
import JQCStorage

/// The probe's own table and invariant checks (SQL stays in a *Store.swift file).
enum ProbeStore {
    /// A table the probe's submit hook writes inside the submit transaction.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: "probe", "1-create") { db in
            try db.execute("CREATE TABLE probe_submitted (local_id TEXT PRIMARY KEY NOT NULL, payload TEXT NOT NULL)")
        }
    }

    static func recordSubmitted(_ db: Database, localID: String) throws {
        try db.execute(
            "INSERT INTO probe_submitted (local_id, payload) VALUES (?, ?)",
            [localID, String(repeating: "h", count: 2_000)])
    }

    /// Every violation of: completed ⇔ completed_at ⇔ score ⇔ the hook's row; completed ⇒ pending;
    /// a draft has none of them; the file passes SQLite's integrity check.
    /// - Returns: (drafts, completed, violations).
    static func check(_ queue: DatabaseQueue) throws -> (Int, Int, [String]) {
        try queue.read { db in
            var violations: [String] = []
            let integrity: String = try db.scalar("PRAGMA integrity_check") ?? "?"
            if integrity != "ok" { violations.append("integrity: \(integrity)") }
            let rows = try db.fetchAll(
                """
                SELECT i.local_id, i.status, i.sync_status, i.completed_at, i.overall_score,
                    (SELECT count(*) FROM probe_submitted p WHERE p.local_id = i.local_id) AS hooked
                FROM inspections i
                """)
            var drafts = 0, completed = 0
            for row in rows {
                let id: String = row["local_id"] ?? "?"
                let status: String = row["status"] ?? "?"
                let sync: String = row["sync_status"] ?? "?"
                let hasCompletedAt = row.databaseValue("completed_at") != .null
                let hasScore = row.databaseValue("overall_score") != .null
                let hooked: Int = row["hooked"] ?? 0
                if status == "completed" {
                    completed += 1
                    if !(hasCompletedAt && hasScore && hooked == 1 && sync == "pending") {
                        violations.append(
                            "\(id): completed but completed_at=\(hasCompletedAt) score=\(hasScore) "
                                + "hook=\(hooked) sync=\(sync)")
                    }
                } else {
                    drafts += 1
                    if hasCompletedAt || hasScore || hooked != 0 {
                        violations.append(
                            "\(id): draft but completed_at=\(hasCompletedAt) score=\(hasScore) hook=\(hooked)")
                    }
                }
            }
            let orphans: Int =
                try db.scalar(
                    """
                    SELECT count(*) FROM probe_submitted WHERE local_id NOT IN (SELECT local_id FROM inspections)
                    """) ?? 0
            if orphans > 0 { violations.append("\(orphans) hook rows without an inspection") }
            return (drafts, completed, violations)
        }
    }
}
