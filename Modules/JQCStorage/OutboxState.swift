import Foundation
import JQCKit

/// The key of one outbox row: the values of its table's key columns, in ``OutboxTable/keyColumns`` order
/// (an inspection's `local_id`; a queued issue edit's `issue_local_id` and `kind`).
public struct OutboxKey: Sendable, Hashable, CustomStringConvertible {
    /// The key columns' values, in order.
    public var values: [DatabaseValue]

    /// A key from the key columns' values, in order.
    public init(_ values: any DatabaseValueConvertible...) {
        self.values = values.map(\.databaseValue)
    }

    /// The values as statement arguments (for a `WHERE` on the key columns).
    public var arguments: StatementArguments { values.map { $0 as any DatabaseValueConvertible } }

    /// The values joined by `/`, for logs.
    public var description: String {
        values.map { value -> String in
            switch value {
            case .null: "null"
            case .integer(let number): String(number)
            case .real(let number): String(number)
            case .text(let text): text
            case .blob(let data): "\(data.count) bytes"
            }
        }.joined(separator: "/")
    }
}

/// Where one outbox item stands, as its table's outbox columns store it (a value, rule 68). Every
/// feature's item carries one, decoded by ``init(row:)`` — the one place these columns are read — with who
/// made it, for which server (``author``; [authorship], issue 20).
public struct OutboxState: Sendable, Hashable {
    /// `pending` until the server has it, then `synced`; `failed` when refused or out of tries (kept until
    /// the inspector retries or discards it). Column `sync_status`.
    public var status: SyncStatus
    /// Counted tries: real server answers only (SPEC.md §4, the 5-try limit). Column `sync_attempts`.
    public var attempts: Int
    /// When it was last tried, or `nil`. Column `last_attempt_at`.
    public var lastAttemptAt: Date?
    /// The last failure (or the refusal) as a sentence, or `nil`. Column `sync_error`.
    public var error: String?
    /// Why it is waiting, as a sentence (its photos, its parent, backoff, a transient failure), or `nil`
    /// when it is not waiting. Column `deferred_reason`; cleared when it is synced or failed.
    public var deferredReason: String?
    /// Who made it, for which server: stamped by the table's insert trigger, never written by an update
    /// (columns `author_user_id`, `author_username`, `author_server`). Not part of ``columnValues``.
    public var author: OutboxAuthor

    /// A state; the defaults are a fresh pending item of the unknown author (an insert is stamped with the
    /// recorded session by the table's trigger).
    public init(
        status: SyncStatus = .pending, attempts: Int = 0, lastAttemptAt: Date? = nil, error: String? = nil,
        deferredReason: String? = nil, author: OutboxAuthor = OutboxAuthor()
    ) {
        self.status = status
        self.attempts = attempts
        self.lastAttemptAt = lastAttemptAt
        self.error = error
        self.deferredReason = deferredReason
        self.author = author
    }

    /// The outbox columns of `row` (a missing or unreadable column reads as the fresh-pending default; missing
    /// author columns as the unknown author).
    public init(row: Row) {
        self.init(
            status: SyncStatus(rawValue: row["sync_status"] ?? "") ?? .pending, attempts: row["sync_attempts"] ?? 0,
            lastAttemptAt: row["last_attempt_at"], error: row["sync_error"], deferredReason: row["deferred_reason"],
            author: OutboxAuthor(row: row))
    }

    /// The values of ``OutboxTable/columnNames``, in that order, for an `INSERT`.
    public var columnValues: StatementArguments { [status.rawValue, attempts, lastAttemptAt, error, deferredReason] }
}

/// An item a push stage sends: the rows it stands for and their outbox state. Most items are one row;
/// a batch sent in one request (the queued notification mark-read) is several.
public protocol OutboxItem: Sendable {
    /// The keys of the rows this item stands for (at least one).
    var outboxKeys: [OutboxKey] { get }
    /// The item's outbox state (for a batch: the most tries and the latest attempt among its rows).
    var outbox: OutboxState { get }
}
