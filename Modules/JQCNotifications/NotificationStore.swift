import Foundation
import JQCKit
import JQCStorage

/// The feature's tables, namespaced `notifications` (FEATURES.md step 1): the pulled notifications with
/// their queued mark-read, the poll cursor, and the dashboard stats cache. Every column added later carries
/// a default (seed 001 rule 8's lesson).
public enum NotificationsSchema {
    /// The migration namespace.
    public static let namespace = "notifications"

    /// Registers this feature's migrations, in order.
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: namespace, "1-create") { db in
            try db.execute(
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
                """)
        }
        // The queued mark-read becomes an outbox of its own (a queue: a row per notification to mark read on
        // the server, deleted once sent or refused); what `1-create` queued moves over with its tries.
        migrator.registerMigration(namespace: namespace, "2-read-queue") { db in
            try db.execute(
                """
                CREATE TABLE notification_reads (
                    notification_id INTEGER PRIMARY KEY NOT NULL
                        REFERENCES notifications(server_id) ON DELETE CASCADE,
                    \(OutboxTable.columns)
                )
                """)
            try db.execute(
                """
                INSERT INTO notification_reads (notification_id, sync_attempts, last_attempt_at, sync_error)
                SELECT server_id, read_push_attempts, read_push_last_attempt_at, read_push_error
                FROM notifications WHERE read_pending_push = 1
                """)
            try db.execute(
                """
                UPDATE notifications SET read_pending_push = 0, read_push_attempts = 0,
                    read_push_last_attempt_at = NULL, read_push_error = NULL
                WHERE read_pending_push = 1
                """)
        }
        NotificationStore.readsOutbox.registerMigrations(namespace: namespace, in: &migrator)
    }
}

/// The queued mark-read, as one batch (`PATCH /notifications/mark-read {ids}` sends them together): one
/// outbox item standing for every row of ``NotificationStore/readsOutbox``.
public struct QueuedMarkRead: Sendable, Equatable, OutboxItem {
    /// The notifications to mark read on the server, ascending.
    public var ids: [Int64]
    /// Counted tries so far (the largest among the batch).
    public var attempts: Int
    /// When the batch was last tried, or `nil`.
    public var lastAttemptAt: Date?
    /// Why the batch waits (the last transient failure, or backoff), or `nil`.
    public var deferredReason: String?
    /// Who queued the batch, for which server (every row of a batch has one author; [authorship], issue 20).
    public var author: OutboxAuthor

    /// A batch.
    public init(
        ids: [Int64], attempts: Int, lastAttemptAt: Date?, deferredReason: String? = nil,
        author: OutboxAuthor = OutboxAuthor()
    ) {
        self.author = author
        self.ids = ids
        self.attempts = attempts
        self.lastAttemptAt = lastAttemptAt
        self.deferredReason = deferredReason
    }

    /// One key per queued notification.
    public var outboxKeys: [OutboxKey] { ids.map { OutboxKey($0) } }
    /// The batch's state: the most tries and the latest attempt among its rows.
    public var outbox: OutboxState {
        OutboxState(attempts: attempts, lastAttemptAt: lastAttemptAt, deferredReason: deferredReason, author: author)
    }
}

/// What one pull wrote.
public struct NotificationUpsert: Sendable, Equatable {
    /// Notifications seen for the first time, unread, oldest first: the ones to announce.
    public var new: [NotificationItem]
    /// Every notification in the reply.
    public var received: Int
    /// The cursor after the pull (`created_at` text as the server sent it), or `nil`.
    public var cursor: String?
    /// One sentence per notification in the reply that could not be read, naming its JSON path (issue 21).
    public var problems: [String] = []
}

/// The SQL of the notifications feature (the only file of the module that holds any). Every multi-row
/// change is one transaction; reads return values, never live rows (seed 001 rule 68).
public struct NotificationStore: Sendable {
    private let queue: DatabaseQueue

    /// The queued mark-read: a queue outbox, one row per notification (deleted once sent or refused).
    public static let readsOutbox = OutboxTable("notification_reads", key: ["notification_id"], lifecycle: .queue)

    /// The store's database (the push driver writes the queue's outbox columns in it).
    public var database: DatabaseQueue { queue }

    /// A store over `queue` (migrated with ``NotificationsSchema``).
    public init(queue: DatabaseQueue) { self.queue = queue }

    // MARK: Notifications

    /// Upserts a pull's notifications and advances the cursor to the largest `created_at` received (never
    /// moving back, never from the device clock), in one transaction.
    /// - Parameters:
    ///   - received: the reply, in any order.
    ///   - receivedAt: this device's time, kept for diagnostics only.
    ///   - shouldApply: checked inside the transaction; `false` discards the whole reply (a logout cleared the
    ///     data while the request was in flight).
    /// - Returns: the new ones and the cursor; `nil` when discarded.
    /// - Throws: `DatabaseError`.
    public func upsert(_ received: [NotificationItem], receivedAt: Date, shouldApply: () -> Bool) throws
        -> NotificationUpsert?
    {
        try queue.write { db in
            guard shouldApply() else { return nil }
            var new: [NotificationItem] = []
            for item in received {
                let exists: Int64? = try db.scalar("SELECT server_id FROM notifications WHERE server_id = ?", [item.id])
                if exists == nil {
                    try db.execute(
                        """
                        INSERT INTO notifications (server_id, title, body, link, event_type, created_at,
                                                   created_instant, read, received_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            item.id, item.title, item.body, item.link, item.eventType, item.createdAt,
                            item.createdInstant, item.read, receivedAt,
                        ])
                    if !item.read { new.append(item) }
                } else {
                    // Once read here, a notification stays read (the mark-read may still be queued).
                    try db.execute(
                        """
                        UPDATE notifications SET title = ?, body = ?, link = ?, event_type = ?, created_at = ?,
                               created_instant = ?, read = MAX(read, ?)
                        WHERE server_id = ?
                        """,
                        [
                            item.title, item.body, item.link, item.eventType, item.createdAt, item.createdInstant,
                            item.read, item.id,
                        ])
                }
            }
            var cursor = try Self.cursor(db)
            if let newest = received.filter({ $0.createdInstant != nil })
                .max(by: { $0.createdInstant! < $1.createdInstant! }),
                cursor.map({ newest.createdInstant! > $0.instant }) ?? true
            {
                try db.execute(
                    """
                    INSERT INTO notification_cursor (id, created_at, created_instant) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at,
                                                   created_instant = excluded.created_instant
                    """, [newest.createdAt, newest.createdInstant!])
                cursor = (newest.createdAt, newest.createdInstant!)
            }
            new.sort { ($0.createdInstant ?? .distantPast, $0.id) < ($1.createdInstant ?? .distantPast, $1.id) }
            return NotificationUpsert(new: new, received: received.count, cursor: cursor?.text)
        }
    }

    /// The `since` cursor: the largest `created_at` received, as the server wrote it, or `nil` before the
    /// first notification.
    /// - Throws: `DatabaseError`.
    public func cursor() throws -> String? {
        try queue.read { db in try Self.cursor(db)?.text }
    }

    private static func cursor(_ db: Database) throws -> (text: String, instant: Date)? {
        guard let row = try db.fetchOne("SELECT created_at, created_instant FROM notification_cursor WHERE id = 1"),
            let text: String = row["created_at"], let instant: Date = row["created_instant"]
        else { return nil }
        return (text, instant)
    }

    /// Every pulled notification, newest first (by `created_at`, then id).
    /// - Throws: `DatabaseError`.
    public func all() throws -> [NotificationItem] {
        try queue.read { db in
            try db.fetchAll(
                """
                SELECT server_id, title, body, link, event_type, created_at, created_instant, read,
                    EXISTS (SELECT 1 FROM notification_reads WHERE notification_id = server_id) AS read_pending_push
                FROM notifications ORDER BY created_instant IS NULL, created_instant DESC, server_id DESC
                """
            ).map(Self.item)
        }
    }

    /// How many pulled notifications are unread.
    /// - Throws: `DatabaseError`.
    public func unreadCount() throws -> Int {
        try queue.read { db in try db.scalar("SELECT COUNT(*) FROM notifications WHERE read = 0") ?? 0 }
    }

    private static func item(_ row: Row) -> NotificationItem {
        NotificationItem(
            id: row["server_id"] ?? 0, title: row["title"] ?? "", body: row["body"] ?? "",
            link: row["link"], eventType: row["event_type"] ?? "", createdAt: row["created_at"] ?? "",
            createdInstant: row["created_instant"], read: row["read"] ?? false,
            readPendingPush: row["read_pending_push"] ?? false)
    }

    // MARK: Mark read (the queued server call)

    /// Marks every unread notification read and queues the server call for them, in one transaction.
    /// - Returns: the ids marked, ascending (empty when none was unread).
    /// - Throws: `DatabaseError`.
    public func markAllRead() throws -> [Int64] {
        try queue.write { db in
            let ids: [Int64] = try db.fetchAll("SELECT server_id FROM notifications WHERE read = 0 ORDER BY server_id")
                .compactMap { $0["server_id"] }
            try db.execute("UPDATE notifications SET read = 1 WHERE read = 0")
            for id in ids {
                try db.execute(
                    """
                    INSERT INTO notification_reads (notification_id) VALUES (?)
                    ON CONFLICT (notification_id) DO UPDATE SET \(OutboxTable.freshPendingAssignments)
                    """, [id])
            }
            return ids
        }
    }

    /// The first queued mark-read batch (``queuedMarkReads()``), or `nil` when nothing is queued.
    /// - Throws: `DatabaseError`.
    public func queuedMarkRead() throws -> QueuedMarkRead? { try queuedMarkReads().first }

    /// The queued mark-reads, one batch per author and server ([authorship], issue 20: a batch is sent with its
    /// author's token only), in order of their lowest notification id; empty when nothing is queued.
    /// - Throws: `DatabaseError`.
    public func queuedMarkReads() throws -> [QueuedMarkRead] {
        try queue.read { db in
            let all = try db.fetchAll("SELECT * FROM notification_reads ORDER BY notification_id")
            var authors: [OutboxAuthor] = []
            for row in all where !authors.contains(OutboxAuthor(row: row)) { authors.append(OutboxAuthor(row: row)) }
            return authors.map { author in
                let rows = all.filter { OutboxAuthor(row: $0) == author }
                let states = rows.map(OutboxState.init(row:))
                return QueuedMarkRead(
                    ids: rows.compactMap { $0["notification_id"] }, attempts: states.map(\.attempts).max() ?? 0,
                    lastAttemptAt: states.compactMap(\.lastAttemptAt).max(),
                    deferredReason: states.compactMap(\.deferredReason).first, author: author)
            }
        }
    }

    /// How many notifications wait to be marked read on the server (SHELL.md `status`).
    /// - Throws: `DatabaseError`.
    public func queuedMarkReadCount() throws -> Int {
        try queue.read { db in try db.scalar("SELECT count(*) FROM notification_reads") ?? 0 }
    }

    // MARK: Dashboard stats cache

    /// Replaces the cached dashboard stats (the reply's `data`, lossless) and when they were fetched.
    /// - Parameters:
    ///   - stats: the reply's `data`, as sent.
    ///   - fetchedAt: when the reply arrived.
    ///   - shouldApply: checked inside the transaction; `false` writes nothing (a logout cleared the
    ///     cache while the request was in flight).
    /// - Returns: whether the stats were written.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func saveDashboard(_ stats: JSONValue, fetchedAt: Date, shouldApply: () -> Bool = { true }) throws -> Bool {
        try queue.write { db in
            guard shouldApply() else { return false }
            try db.execute(
                """
                INSERT INTO dashboard_stats (id, stats, fetched_at) VALUES (1, ?, ?)
                ON CONFLICT (id) DO UPDATE SET stats = excluded.stats, fetched_at = excluded.fetched_at
                """, [stats, fetchedAt])
            return true
        }
    }

    /// The cached dashboard stats and when they were fetched, or `nil` when none are cached.
    /// - Throws: `DatabaseError`.
    public func dashboard() throws -> (stats: JSONValue, fetchedAt: Date)? {
        try queue.read { db in
            guard let row = try db.fetchOne("SELECT stats, fetched_at FROM dashboard_stats WHERE id = 1"),
                let stats: JSONValue = row["stats"], let fetchedAt: Date = row["fetched_at"]
            else { return nil }
            return (stats, fetchedAt)
        }
    }

    /// Erases the cached dashboard stats (logout, server switch).
    /// - Throws: `DatabaseError`.
    public func clearDashboard() throws {
        try queue.write { db in try db.execute("DELETE FROM dashboard_stats") }
    }

    // MARK: Logout

    /// Erases the pulled notifications (with any queued mark-read: it belongs to the person signing out) and
    /// the cursor, in one transaction (seed 001 §21, rule 42; `resetNotificationPoller()` clears the cursor).
    /// - Throws: `DatabaseError`.
    public func clearNotifications() throws {
        try queue.write { db in
            try db.execute("DELETE FROM notifications")
            try db.execute("DELETE FROM notification_cursor")
        }
    }
}
