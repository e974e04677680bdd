import Foundation
import JQCKit

/// A feature's outbox table: the outbox columns every such table carries, and their writers, written once
/// (issue 16; STYLE.md item 16). A feature names its table and key; JQCSync's push driver calls the
/// writers, the feature's store calls the schema helpers and ``retry(_:_:at:)`` / ``discard(_:_:)``.
///
/// The columns (``columns``): `sync_status` (`pending`, `synced`, `failed`), `sync_attempts`,
/// `last_attempt_at`, `sync_error`, `deferred_reason`. A new table puts ``columns`` into its
/// `CREATE TABLE`; every outbox table also registers ``registerMigrations(namespace:in:)`` once, which adds
/// any outbox column an older store lacks — so a column added here later reaches every table through that
/// one registration.
///
/// Every writer works inside the caller's transaction and takes the rows' keys; a key that matches no row
/// changes nothing (the row was deleted meanwhile).
public struct OutboxTable: Sendable, Hashable {
    /// What a row stands for, which decides what "sent" and "refused" do to it.
    public enum Lifecycle: String, Sendable, Hashable {
        /// The row is the record itself (an inspection, an issue, a photo): it stays, `synced` once sent,
        /// `failed` when refused or out of tries (kept until the inspector retries or discards it).
        case record
        /// The row is a queued call (a status edit, a mark-read): it is deleted once sent, and deleted when
        /// refused for good (the feature leaves its sentence where the inspector sees it).
        case queue
    }

    /// The table's name (a plain lower-case identifier).
    public let name: String
    /// The key columns, in ``OutboxKey`` order.
    public let keyColumns: [String]
    /// Record or queue.
    public let lifecycle: Lifecycle
    /// A column every writer also sets to the write's time (e.g. `updated_at`), or `nil`.
    public let touchedColumn: String?
    /// The push driver's statements, built once (issue 17): the same `String` on every call, so the statement
    /// cache finds each by its address instead of the text being interpolated and hashed for every item sent.
    private let writerSQL: WriterSQL

    /// A table description. Names come from code, never from input.
    /// - Parameters:
    ///   - name: the table (`inspections`, `issue_edits`).
    ///   - keyColumns: its key columns (`local_id`; `issue_local_id`, `kind`).
    ///   - lifecycle: record (default) or queue.
    ///   - touchedColumn: a time column the writers keep current (`updated_at`), or `nil`.
    public init(
        _ name: String, key keyColumns: [String], lifecycle: Lifecycle = .record, touching touchedColumn: String? = nil
    ) {
        precondition(!keyColumns.isEmpty, "an outbox table needs a key")
        for identifier in [name] + keyColumns + [touchedColumn].compactMap({ $0 }) {
            precondition(Self.isIdentifier(identifier), "not a plain identifier: \(identifier)")
        }
        self.name = name
        self.keyColumns = keyColumns
        self.lifecycle = lifecycle
        self.touchedColumn = touchedColumn
        writerSQL = WriterSQL(name: name, keyColumns: keyColumns, touchedColumn: touchedColumn)
    }

    // MARK: Schema

    /// The outbox state columns' names, in ``OutboxState/columnValues`` order (for `SELECT` and `INSERT`
    /// lists). The author columns (``authorColumnNames``) are not among them: an insert leaves them to the
    /// table's trigger, which stamps the recorded session (``OutboxAuthorship``).
    public static let columnNames = columnSpecs.filter { $0.version == 1 }.map(\.name)

    /// The author columns (`author_user_id`, `author_username`, `author_server`; ``OutboxAuthor``), for a
    /// `SELECT` list that reads an item's author.
    public static let authorColumnNames = columnSpecs.filter { $0.version == 2 }.map(\.name)

    /// The outbox columns for a `CREATE TABLE` (comma separated, no trailing comma).
    public static var columns: String {
        columnSpecs.map { "\($0.name) \($0.definition)\($0.check.map { " \($0)" } ?? "")" }.joined(separator: ",\n")
    }

    /// `sync_status = 'pending'` with every other outbox column back to its default: a fresh pending item
    /// (for an `UPDATE … SET` that re-queues a row, e.g. a submit or a replaced queued edit).
    public static let freshPendingAssignments =
        "sync_status = 'pending', sync_attempts = 0, last_attempt_at = NULL, sync_error = NULL, deferred_reason = NULL"

    private struct ColumnSpec {
        var name: String
        var definition: String
        var check: String? = nil
        /// The outbox migration (`<table>-outbox-<version>`) that adds it to older tables.
        var version = 1
    }

    /// The outbox columns. A new column is appended here with a default and the next `version`; never
    /// change a shipped entry.
    private static let columnSpecs: [ColumnSpec] = [
        ColumnSpec(
            name: "sync_status", definition: "TEXT NOT NULL DEFAULT 'pending'",
            check: "CHECK (sync_status IN ('pending', 'synced', 'failed'))"),
        ColumnSpec(name: "sync_attempts", definition: "INTEGER NOT NULL DEFAULT 0"),
        ColumnSpec(name: "last_attempt_at", definition: "TEXT"),
        ColumnSpec(name: "sync_error", definition: "TEXT"),
        ColumnSpec(name: "deferred_reason", definition: "TEXT"),
        // [authorship] (issue 20): who made the item, for which server (``OutboxAuthor``), stamped on insert.
        ColumnSpec(name: "author_user_id", definition: "INTEGER", version: 2),
        ColumnSpec(name: "author_username", definition: "TEXT", version: 2),
        ColumnSpec(name: "author_server", definition: "TEXT", version: 2),
    ]

    /// Registers this table's outbox migrations under the feature's namespace, one per column version:
    /// `<table>-outbox-1` adds any of the first outbox columns the table lacks (`deferred_reason` on the
    /// tables created before it; all five on a queue table that had only some), with their defaults, so
    /// every existing row keeps its state and a pending row stays pending. `<table>-outbox-2` ([authorship],
    /// issue 20) adds the author columns, attributes every existing row to the session recorded before the
    /// migration ran (``OutboxAuthorship/record(_:userID:username:server:)``: the data directory's signed-in
    /// user and server, else the unknown author) and installs the insert trigger (``installAuthorship(_:)``).
    /// A table created with ``columns`` already has the columns and the migrations change nothing else. Call
    /// once per outbox table, after the migration that creates it.
    public func registerMigrations(namespace: String, in migrator: inout DatabaseMigrator) {
        let table = self
        for version in 1...(Self.columnSpecs.map(\.version).max() ?? 1) {
            migrator.registerMigration(namespace: namespace, "\(name)-outbox-\(version)") { db in
                try table.addMissingColumns(db, version: version)
                if version == 2 { try table.installAuthorship(db) }
            }
        }
    }

    /// The authorship part of `<table>-outbox-2`, idempotent: adds the author columns when missing, stamps
    /// every row without an author with the recorded session (an older store's rows), registers the table
    /// for ``OutboxAuthorship/unsyncedCounts(_:)`` and creates the trigger `<table>_outbox_author` that
    /// stamps each inserted row whose `author_server` is `NULL`. A migration that rebuilds an outbox table
    /// (which drops its trigger) calls this again after the rebuild.
    /// - Throws: ``DatabaseError``.
    public func installAuthorship(_ db: Database) throws {
        try OutboxAuthorship.prepareTables(db)
        try addMissingColumns(db, version: 2)
        try db.execute("INSERT OR IGNORE INTO outbox_tables (name) VALUES (?)", [name])
        let stamp = """
            author_user_id = (SELECT user_id FROM outbox_author WHERE id = 1),
            author_username = (SELECT username FROM outbox_author WHERE id = 1),
            author_server = (SELECT server FROM outbox_author WHERE id = 1)
            """
        try db.execute("UPDATE \(name) SET \(stamp) WHERE author_server IS NULL AND author_user_id IS NULL")
        let newKey = keyColumns.map { "\($0) = NEW.\($0)" }.joined(separator: " AND ")
        try db.execute(
            """
            CREATE TRIGGER IF NOT EXISTS \(name)_outbox_author AFTER INSERT ON \(name)
            WHEN NEW.author_server IS NULL AND NEW.author_user_id IS NULL
            BEGIN
                UPDATE \(name) SET \(stamp) WHERE \(newKey);
            END
            """)
    }

    private func addMissingColumns(_ db: Database, version: Int) throws {
        let present = Set(try db.fetchAll("PRAGMA table_info(\(name))").compactMap { $0["name"] as String? })
        guard !present.isEmpty else {
            throw DatabaseError(kind: .other, detail: "the outbox table \(name) does not exist")
        }
        for spec in Self.columnSpecs where spec.version <= version && !present.contains(spec.name) {
            try db.execute("ALTER TABLE \(name) ADD COLUMN \(spec.name) \(spec.definition)")
        }
    }

    // MARK: Writers (the push driver's)

    /// A try that keeps the items pending: the new count, the failure as both the error and the reason
    /// they wait, and when.
    /// - Throws: ``DatabaseError``.
    public func markAttempt(_ db: Database, _ keys: [OutboxKey], attempts: Int, reason: String, at now: Date) throws {
        try update(db, keys, writerSQL.markAttempt, [attempts, reason, reason, now], at: now)
    }

    /// Records why the items wait without a try (their photos, their parent, backoff). Not counted, and
    /// `touchedColumn` is left alone: waiting is not a change of the record.
    /// - Throws: ``DatabaseError``.
    public func markWaiting(_ db: Database, _ keys: [OutboxKey], reason: String) throws {
        for key in keys { try db.execute(writerSQL.markWaiting, [reason] + key.arguments) }
    }

    /// The server has the items: a record becomes `synced` (error and reason cleared); a queued call is
    /// deleted.
    /// - Throws: ``DatabaseError``.
    public func markSynced(_ db: Database, _ keys: [OutboxKey], at now: Date) throws {
        switch lifecycle {
        case .record:
            try update(db, keys, writerSQL.markSynced, [now], at: now)
        case .queue:
            try delete(db, keys)
        }
    }

    /// Refused for good (a 4xx, out of tries, or a reason the feature gave): a record becomes `failed`
    /// with the sentence, never deleted (it waits for the inspector's retry or discard); a queued call is
    /// deleted.
    /// - Throws: ``DatabaseError``.
    public func markFailed(_ db: Database, _ keys: [OutboxKey], reason: String, at now: Date) throws {
        switch lifecycle {
        case .record:
            try update(db, keys, writerSQL.markFailed, [reason, now], at: now)
        case .queue:
            try delete(db, keys)
        }
    }

    /// Records a sentence on records without changing their state (e.g. a queued call that belonged to one
    /// was refused: the inspector sees why on the record). Not counted; `touchedColumn` left alone.
    /// - Throws: ``DatabaseError``.
    public func setError(_ db: Database, _ keys: [OutboxKey], _ message: String?) throws {
        for key in keys {
            try db.execute("UPDATE \(name) SET sync_error = ? WHERE \(keyCondition)", [message] + key.arguments)
        }
    }

    // MARK: Writers (the inspector's)

    /// Puts a failed record back in the outbox as a fresh pending item (the inspector's retry).
    /// - Returns: whether a failed row with that key was found.
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func retry(_ db: Database, _ key: OutboxKey, at now: Date) throws -> Bool {
        var sets = Self.freshPendingAssignments
        var arguments: StatementArguments = []
        if let touchedColumn {
            sets += ", \(touchedColumn) = ?"
            arguments.append(now)
        }
        try db.execute(
            "UPDATE \(name) SET \(sets) WHERE \(keyCondition) AND sync_status = 'failed'", arguments + key.arguments)
        return db.changesCount > 0
    }

    /// Deletes a failed record (the inspector's discard; never done because of an error). The feature
    /// removes what hangs off it (photos, files) in the same transaction.
    /// - Returns: whether a failed row with that key was deleted.
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func discard(_ db: Database, _ key: OutboxKey) throws -> Bool {
        try db.execute("DELETE FROM \(name) WHERE \(keyCondition) AND sync_status = 'failed'", key.arguments)
        return db.changesCount > 0
    }

    // MARK: Reads

    /// The outbox state of one row, or `nil` when there is none.
    /// - Throws: ``DatabaseError``.
    public func state(_ db: Database, _ key: OutboxKey) throws -> OutboxState? {
        try db.fetchOne(
            "SELECT \((Self.columnNames + Self.authorColumnNames).joined(separator: ", ")) FROM \(name) WHERE \(keyCondition)",
            key.arguments
        ).map(OutboxState.init(row:))
    }

    // MARK: Helpers

    private var keyCondition: String { writerSQL.keyCondition }

    /// The statements the push driver runs for every item (issue 17), each built once per table. An update's
    /// placeholders are its values, then the touched column's time (when the table has one), then the key.
    private struct WriterSQL: Sendable, Hashable {
        let markAttempt: String
        let markWaiting: String
        let markSynced: String
        let markFailed: String
        let delete: String
        /// `col = ? AND …` over the key columns, in ``OutboxKey`` order.
        let keyCondition: String

        init(name: String, keyColumns: [String], touchedColumn: String?) {
            let key = keyColumns.map { "\($0) = ?" }.joined(separator: " AND ")
            keyCondition = key
            let touched = touchedColumn.map { ", \($0) = ?" } ?? ""
            func update(_ assignments: String) -> String {
                "UPDATE \(name) SET \(assignments)\(touched) WHERE \(key)"
            }
            markAttempt = update("sync_attempts = ?, sync_error = ?, deferred_reason = ?, last_attempt_at = ?")
            markWaiting = "UPDATE \(name) SET deferred_reason = ? WHERE \(key)"
            markSynced = update(
                "sync_status = 'synced', sync_error = NULL, deferred_reason = NULL, last_attempt_at = ?")
            markFailed = update("sync_status = 'failed', sync_error = ?, deferred_reason = NULL, last_attempt_at = ?")
            delete = "DELETE FROM \(name) WHERE \(key)"
        }
    }

    /// Runs one of ``WriterSQL``'s updates for each key: `arguments`, then the touched column's time when the
    /// table has one, then the key.
    private func update(
        _ db: Database, _ keys: [OutboxKey], _ sql: String, _ arguments: StatementArguments, at now: Date
    ) throws {
        var values = arguments
        if touchedColumn != nil { values.append(now) }
        for key in keys {
            precondition(key.values.count == keyColumns.count, "an outbox key of \(name) has the wrong arity")
            try db.execute(sql, values + key.arguments)
        }
    }

    private func delete(_ db: Database, _ keys: [OutboxKey]) throws {
        for key in keys { try db.execute(writerSQL.delete, key.arguments) }
    }

    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.first?.isNumber == false
            && text.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLowercase || $0.isNumber)) }
    }
}
