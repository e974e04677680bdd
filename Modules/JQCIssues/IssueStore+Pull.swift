import Foundation
import JQCKit
import JQCStorage

/// The assigned-issues pull's SQL (rules 30, 31, 42).
extension IssueStore {
    /// Server ids of every server-pulled issue (rule 31: synced AND `inspection_local_id = ''`).
    /// - Throws: `DatabaseError`.
    func serverPulledIDs(_ db: Database) throws -> [(localID: String, serverID: Int)] {
        try db.fetchAll(
            "SELECT local_id, server_id FROM issues WHERE sync_status = 'synced' AND inspection_local_id = '' "
                + "AND server_id IS NOT NULL"
        ).compactMap { row in
            guard let local: String = row["local_id"], let server: Int = row["server_id"] else { return nil }
            return (local, server)
        }
    }

    /// The assigned-issues list as last pulled with an ETag (its `data` as JSON text), or `nil`.
    /// - Throws: `DatabaseError`.
    func pullCondition() throws -> (etag: String, reply: String)? {
        try queue.read { db in
            guard let row = try db.fetchOne("SELECT etag, reply FROM issues_pull_state WHERE id = 1"),
                let etag: String = row["etag"], let reply: String = row["reply"]
            else { return nil }
            return (etag, reply)
        }
    }

    /// Stores the list a pull applied with its ETag, or forgets both (`nil`), in the pull's transaction.
    /// - Throws: `DatabaseError`.
    func storePullCondition(_ db: Database, _ condition: (etag: String, reply: String)?) throws {
        guard let condition else {
            try db.execute("DELETE FROM issues_pull_state")
            return
        }
        try db.execute(
            "INSERT OR REPLACE INTO issues_pull_state (id, etag, reply) VALUES (1, ?, ?)",
            [condition.etag, condition.reply])
    }

    /// Deletes every issue with a server id (rule 42), with its queued edits.
    /// - Returns: the deleted local ids.
    /// - Throws: `DatabaseError`.
    func deleteServerKnown() throws -> [String] {
        try queue.write { db in
            let ids: [String] = try db.fetchAll("SELECT local_id FROM issues WHERE server_id IS NOT NULL")
                .compactMap { $0["local_id"] }
            try db.execute("DELETE FROM issues WHERE server_id IS NOT NULL")
            try db.execute("DELETE FROM issues_pull_state")
            return ids
        }
    }
}
