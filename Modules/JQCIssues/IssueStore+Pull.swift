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

    /// Deletes every issue with a server id (rule 42), with its queued edits.
    /// - Returns: the deleted local ids.
    /// - Throws: `DatabaseError`.
    func deleteServerKnown() throws -> [String] {
        try queue.write { db in
            let ids: [String] = try db.fetchAll("SELECT local_id FROM issues WHERE server_id IS NOT NULL")
                .compactMap { $0["local_id"] }
            try db.execute("DELETE FROM issues WHERE server_id IS NOT NULL")
            return ids
        }
    }
}
