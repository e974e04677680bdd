import Foundation
import JQCKit
import JQCStorage

/// A status or handler change waiting for the server (the queued-edits stage sends it; a row of the
/// ``IssueStore/editsOutbox`` queue).
public struct QueuedIssueEdit: Sendable, Hashable, OutboxItem {
    /// `status` or `handler`.
    public enum Kind: String, Sendable, Hashable {
        /// The status (`PATCH /issues/<id>/status`) or the handler (`PATCH /issues/<id>/handler`).
        case status, handler
    }
    /// The issue's local id.
    public var issueLocalID: String
    /// Which endpoint: `PATCH /issues/<id>/status` or `/handler`.
    public var kind: Kind
    /// The PATCH body (literal snake_case keys, rule 65).
    public var body: JSONValue
    /// The edit's outbox state (tries, last attempt, why it waits).
    public var outbox: OutboxState

    /// A queued edit.
    public init(issueLocalID: String, kind: Kind, body: JSONValue, outbox: OutboxState = OutboxState()) {
        self.issueLocalID = issueLocalID
        self.kind = kind
        self.body = body
        self.outbox = outbox
    }

    /// Counted tries (``/JQCStorage/OutboxState/attempts``).
    public var attempts: Int { outbox.attempts }
    /// When it was last tried (``/JQCStorage/OutboxState/lastAttemptAt``).
    public var lastAttemptAt: Date? { outbox.lastAttemptAt }
    /// The row's key: the issue's local id and the kind.
    public var outboxKeys: [OutboxKey] { [OutboxKey(issueLocalID, kind.rawValue)] }
}

/// The queued edits' SQL (the `issue_edits` table).
extension IssueStore {
    /// Queues (or replaces, as a fresh pending edit) an edit of `kind` for the issue.
    /// - Throws: `DatabaseError`.
    func queueEdit(_ db: Database, localID: String, kind: QueuedIssueEdit.Kind, body: JSONValue, at now: Date)
        throws
    {
        try db.execute(
            """
            INSERT INTO issue_edits (issue_local_id, kind, body, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (issue_local_id, kind) DO UPDATE SET body = excluded.body,
                \(OutboxTable.freshPendingAssignments), created_at = excluded.created_at
            """, [localID, kind.rawValue, body.jsonString(), now])
    }

    /// Every queued edit, oldest first.
    /// - Throws: `DatabaseError`.
    public func queuedEdits() throws -> [QueuedIssueEdit] {
        try queue.read { db in try queuedEdits(db) }
    }

    func queuedEdits(_ db: Database, localID: String? = nil) throws -> [QueuedIssueEdit] {
        let filter = localID == nil ? "" : " WHERE issue_local_id = ?"
        let arguments: StatementArguments = localID.map { [$0] } ?? []
        return try db.fetchAll(
            "SELECT * FROM issue_edits\(filter) ORDER BY created_at, rowid", arguments
        ).compactMap { row in
            guard let id: String = row["issue_local_id"], let kindText: String = row["kind"],
                let kind = QueuedIssueEdit.Kind(rawValue: kindText), let text: String = row["body"],
                let body = try? JSONValue.parse(text)
            else { return nil }
            return QueuedIssueEdit(issueLocalID: id, kind: kind, body: body, outbox: OutboxState(row: row))
        }
    }

    /// How many edits wait for the server (SHELL.md `status`, kind `issue_edits`).
    /// - Throws: `DatabaseError`.
    public func queuedEditCount() throws -> Int {
        try queue.read { db in try db.scalar("SELECT count(*) FROM issue_edits") ?? 0 }
    }

    /// Records a sentence on the issue (a refused queued edit), in the caller's transaction.
    /// - Throws: `DatabaseError`.
    func setError(_ db: Database, localID: String, _ message: String?) throws {
        try Self.outbox.setError(db, [OutboxKey(localID)], message)
    }
}
