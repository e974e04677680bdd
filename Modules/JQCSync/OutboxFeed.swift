import Foundation
import JQCKit
import JQCStorage

/// Whether an outbox item can be sent in this pass, as its feature judges it.
public enum OutboxReadiness: Sendable, Equatable {
    /// Send it now (subject to backoff in an automatic pass).
    case ready
    /// Not yet; the sentence says what it waits for ("waits for its photos to upload"). It stays pending,
    /// untouched but for its `deferred_reason`; no try is counted.
    case waiting(String)
    /// It can never be sent as it is ("its inspection failed to sync; …"): failed at once with the sentence,
    /// like a server refusal.
    case failed(String)
}

/// What a feature supplies so the generic push driver (``OutboxDriver``) can send its outbox: which items
/// are pending, whether one is ready (and if not, why), and how to send one (returning the server's
/// answer). The driver applies ``OutboxPolicy`` and writes the outbox columns through ``table``; the
/// feature writes only its own columns, in the hooks below.
public protocol OutboxFeed: Sendable {
    /// The item type (its outbox keys and state).
    associatedtype Item: OutboxItem
    /// What a successful send returns (the server's reply, decoded as the feature needs it).
    associatedtype Answer: Sendable

    /// The store holding ``table``.
    var database: DatabaseQueue { get }
    /// The outbox table the items live in.
    var table: OutboxTable { get }

    /// Housekeeping before the pass reads the items (e.g. removing records a crash left half-built).
    /// Default: nothing.
    /// - Throws: the store's error (the stage fails).
    func prepare(_ pass: SyncPass) throws

    /// The pending items, in the order they are to be sent (oldest first).
    /// - Throws: the store's error.
    func pendingItems() throws -> [Item]

    /// Whether `item` can be sent now. Default: ``OutboxReadiness/ready``.
    /// - Throws: the store's error.
    func readiness(of item: Item) throws -> OutboxReadiness

    /// Sends one item.
    /// - Returns: the server's answer.
    /// - Throws: any error; ``OutboxPolicy`` classifies it (a ``SyncStopError`` stops the pass).
    func send(_ item: Item, pass: SyncPass) async throws -> Answer

    /// Whether a successful send of `item` counts as pushed (`false` when the server already had it and
    /// only local bookkeeping was left). Default: `true`.
    func countsAsPushed(_ item: Item) -> Bool

    /// What must be kept of a sent item's answer even when its record fails, so the item is never sent
    /// twice (a photo's server path, a created issue's server id). Written first in the one transaction
    /// that records the item; the record itself (the outbox columns and ``recordSent(_:answer:pass:in:)``)
    /// follows in a savepoint, so a record that fails rolls back alone and this write still commits — one
    /// commit (one fsync at synchronous=FULL) per sent item either way (issue 17). Default: nothing.
    /// - Throws: any error; the whole transaction rolls back (nothing kept) and the failure counts as a try.
    func keepAnswer(_ item: Item, answer: Answer, pass: SyncPass, in db: Database) throws

    /// The feature's own writes for a sent item (its server id, a mirrored reply), in the transaction
    /// that marks it synced (after the outbox columns are written). Default: nothing.
    /// - Throws: any error; the record rolls back (what ``keepAnswer(_:answer:pass:in:)`` wrote stays) and
    ///   the failure counts as a try.
    func recordSent(_ item: Item, answer: Answer, pass: SyncPass, in db: Database) throws

    /// Work after the synced transaction commits (e.g. releasing photo files). Failures are logged, never
    /// thrown: the item is synced either way. Default: nothing.
    func sentCommitted(_ item: Item, answer: Answer) throws

    /// The feature's own writes when an item is refused for good (e.g. a sentence on the record a queued
    /// call belonged to), in the transaction that fails it. Default: nothing.
    /// - Throws: the store's error.
    func recordRefused(_ item: Item, reason: String, in db: Database) throws
}

extension OutboxFeed {
    /// Nothing.
    public func prepare(_ pass: SyncPass) throws {}
    /// Always ready.
    public func readiness(of item: Item) throws -> OutboxReadiness { .ready }
    /// Always counted.
    public func countsAsPushed(_ item: Item) -> Bool { true }
    /// Nothing.
    public func keepAnswer(_ item: Item, answer: Answer, pass: SyncPass, in db: Database) throws {}
    /// Nothing.
    public func recordSent(_ item: Item, answer: Answer, pass: SyncPass, in db: Database) throws {}
    /// Nothing.
    public func sentCommitted(_ item: Item, answer: Answer) throws {}
    /// Nothing.
    public func recordRefused(_ item: Item, reason: String, in db: Database) throws {}
}

/// What happened to one item in a push.
public enum OutboxOutcome: Sendable, Equatable {
    /// The server accepted it (and it is recorded as synced).
    case pushed
    /// Not tried in this pass (not ready, or waiting out its backoff), with the reason it waits.
    case waiting(String)
    /// Tried, and kept pending for a later pass (a transient failure), with the reason.
    case deferred(String)
    /// Failed for good (refused, out of tries, or never sendable), with the sentence.
    case failed(String)
}

/// One push's account: the stage report and each item's outcome, in the order they were handled.
public struct OutboxPushResult<Item: OutboxItem>: Sendable {
    /// The counts for the stage report (`pushed`, `failed`, `deferred`, `deferredReason`).
    public var report: StageReport
    /// Each item with what happened to it.
    public var outcomes: [(item: Item, outcome: OutboxOutcome)]
}
