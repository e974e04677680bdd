import Foundation
import JQCKit

/// Who made an outbox item and for which server ([authorship], issue 20): stamped on every outbox row when it
/// is inserted (drafts too) and never changed by an edit, a retry or a restart. Columns `author_user_id`
/// (the server's user id), `author_username` (for display) and `author_server` (the data directory's server
/// identity: `embedded`, `primary`, `secondary` or a URL).
///
/// `userID == nil` is the "unknown" author: a row of an older store when the data directory recorded nobody
/// signed in, or one made before anyone ever signed in here. Only the data directory's last signed-in user —
/// the first one recorded after the upgrade (``OutboxAuthorship/Session/unknownClaimantID``) — may send it.
/// `server == nil` is an unknown server (never filtered).
public struct OutboxAuthor: Sendable, Hashable, Codable {
    /// The author's server user id, or `nil` when unknown.
    public var userID: Int64?
    /// The author's login name (for display), or `nil` when unknown.
    public var username: String?
    /// The server identity the item was made for, or `nil` when unknown.
    public var server: String?

    /// An author; the defaults are the unknown author of an unknown server.
    public init(userID: Int64? = nil, username: String? = nil, server: String? = nil) {
        self.userID = userID
        self.username = username
        self.server = server
    }

    /// The author columns of `row` (missing columns read as unknown).
    public init(row: Row) {
        self.init(userID: row["author_user_id"], username: row["author_username"], server: row["author_server"])
    }

    /// The name people read: the username, else `unknown`.
    public var displayName: String { username ?? (userID.map { "user \($0)" } ?? "unknown") }
}

/// The data directory's outbox session ([authorship], issue 20): who makes outbox items now and for which
/// server — the row every outbox table's insert trigger stamps new rows from — and the table registry that
/// lets the engine count unsynced items by author across every outbox table. The composition root records
/// the session at launch (before the store is migrated, so the migration attributes an older store's rows to
/// it), after a login and after a server switch; a logout keeps the last signed-in user (new work made while
/// signed out is still that inspector's).
public enum OutboxAuthorship {
    /// The recorded session (table `outbox_author`, one row).
    public struct Session: Sendable, Hashable {
        /// The last signed-in user and the current server: what a new outbox row is stamped with.
        public var author: OutboxAuthor
        /// The user who may send items of the unknown author: the first user recorded after the upgrade
        /// (the one signed in at the upgrade, else the next to sign in); `nil` until someone signs in.
        public var unknownClaimantID: Int64?

        /// A session.
        public init(author: OutboxAuthor, unknownClaimantID: Int64?) {
            self.author = author
            self.unknownClaimantID = unknownClaimantID
        }
    }

    /// The unsynced items (not `synced`: pending, drafts included, or failed) of one author and server in
    /// one outbox table.
    public struct UnsyncedCount: Sendable, Hashable {
        /// The outbox table (`inspections`, `pending_photos`, …).
        public var table: String
        /// Who made them, for which server.
        public var author: OutboxAuthor
        /// How many.
        public var count: Int

        /// A count.
        public init(table: String, author: OutboxAuthor, count: Int) {
            self.table = table
            self.author = author
            self.count = count
        }
    }

    /// Creates the session and registry tables when missing (every outbox table's authorship migration and
    /// ``record(_:userID:username:server:)`` call it).
    /// - Throws: ``DatabaseError``.
    static func prepareTables(_ db: Database) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS outbox_author (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                user_id INTEGER,
                username TEXT,
                server TEXT,
                unknown_claimant_id INTEGER
            )
            """)
        try db.execute("CREATE TABLE IF NOT EXISTS outbox_tables (name TEXT PRIMARY KEY NOT NULL)")
    }

    /// Records the session: the signed-in user (`nil` when nobody is signed in: the last one is kept) and
    /// the current server identity. The first user recorded becomes the unknown author's claimant.
    /// - Parameters:
    ///   - db: the open transaction to record in.
    ///   - userID: the signed-in user's server id, or `nil`.
    ///   - username: their login name.
    ///   - server: the server identity (`embedded`, `primary`, `secondary`, a URL).
    /// - Throws: ``DatabaseError``.
    public static func record(_ db: Database, userID: Int64?, username: String?, server: String) throws {
        try prepareTables(db)
        try db.execute("INSERT OR IGNORE INTO outbox_author (id) VALUES (1)")
        if let userID {
            try db.execute(
                """
                UPDATE outbox_author SET user_id = ?, username = ?, server = ?,
                    unknown_claimant_id = coalesce(unknown_claimant_id, ?) WHERE id = 1
                """, [userID, username, server, userID])
        } else {
            try db.execute("UPDATE outbox_author SET server = ? WHERE id = 1", [server])
        }
    }

    /// The recorded session, or `nil` before the first ``record(_:userID:username:server:)``.
    /// - Throws: ``DatabaseError``.
    public static func session(_ db: Database) throws -> Session? {
        let exists: Int? = try db.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'outbox_author'")
        guard exists == 1, let row = try db.fetchOne("SELECT * FROM outbox_author WHERE id = 1") else { return nil }
        return Session(
            author: OutboxAuthor(userID: row["user_id"], username: row["username"], server: row["server"]),
            unknownClaimantID: row["unknown_claimant_id"])
    }

    /// Every outbox table's unsynced items (`sync_status` other than `synced`), by author and server, in
    /// table registration order then by author.
    /// - Throws: ``DatabaseError``.
    public static func unsyncedCounts(_ db: Database) throws -> [UnsyncedCount] {
        let exists: Int? = try db.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'outbox_tables'")
        guard exists == 1 else { return [] }
        var counts: [UnsyncedCount] = []
        for name in try db.fetchAll("SELECT name FROM outbox_tables ORDER BY rowid").compactMap({
            $0["name"] as String?
        })
        where OutboxTable.isIdentifier(name) {
            let rows = try db.fetchAll(
                """
                SELECT author_user_id, author_username, author_server, count(*) AS n FROM \(name)
                WHERE sync_status IN ('pending', 'failed') GROUP BY author_user_id, author_username, author_server
                ORDER BY author_username, author_server
                """)
            counts += rows.map { UnsyncedCount(table: name, author: OutboxAuthor(row: $0), count: $0["n"] ?? 0) }
        }
        return counts
    }
}

extension OutboxAuthorship {
    /// Every outbox table's unsynced rows (`sync_status` other than `synced`: pending, drafts included, and
    /// failed), whole, in table registration order then row order — what `jqc-shell export-pending` writes so
    /// nothing is stranded on a device nobody signs in to again.
    /// - Throws: ``DatabaseError``.
    public static func unsyncedRows(_ db: Database) throws -> [(table: String, rows: [Row])] {
        let exists: Int? = try db.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'outbox_tables'")
        guard exists == 1 else { return [] }
        let names = try db.fetchAll("SELECT name FROM outbox_tables ORDER BY rowid").compactMap {
            $0["name"] as String?
        }
        return try names.filter(OutboxTable.isIdentifier).map { name in
            (name, try db.fetchAll("SELECT * FROM \(name) WHERE sync_status <> 'synced' ORDER BY rowid"))
        }
    }
}
