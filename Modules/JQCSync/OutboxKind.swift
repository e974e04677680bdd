import Foundation
import JQCKit

/// One outbox item that failed for good (shown by `status`, retried or discarded by the inspector).
public struct FailedOutboxItem: Sendable, Equatable, Codable {
    /// The kind, singular (`photo`, `inspection`, `issue`, …), as its feature names it.
    public var kind: String
    /// The item's local id.
    public var localID: String
    /// Why it failed, as a sentence (the server's, when it gave one).
    public var reason: String

    /// A failed item.
    public init(kind: String, localID: String, reason: String) {
        self.kind = kind
        self.localID = localID
        self.reason = reason
    }
}

/// One kind of outbox item, registered by the feature that owns it (``FeatureInstallation/addOutboxKind(_:)``),
/// so `status` and `sync` list every kind without anyone naming them (SHELL.md `status`: pending counts by
/// kind, failed items with reasons).
public struct OutboxKind: Sendable {
    /// The kind's key in `status --json` `pending` (`photos`, `inspections`, `issue_edits`): lower-case
    /// snake_case, plural.
    public let name: String
    /// How people read it (`issue edits`).
    public let label: String
    /// Items not yet synced and not failed.
    public let pendingCount: @Sendable () throws -> Int
    /// Items failed for good, oldest first.
    public let failedItems: @Sendable () throws -> [FailedOutboxItem]
    /// Pending items that wait with a recorded reason, oldest first.
    public let waitingItems: @Sendable () throws -> [WaitingOutboxItem]

    /// A kind.
    /// - Parameters:
    ///   - name: the JSON key (plural snake_case).
    ///   - label: the human label; `name` with spaces for underscores by default.
    ///   - pendingCount: counts the pending items (the store's error is rethrown by ``status()``).
    ///   - failedItems: lists the failed items; none by default (a queue whose refused calls are dropped).
    ///   - waitingItems: lists the pending items that wait with a reason (``WaitingOutboxItem``); none by default.
    public init(
        _ name: String, label: String? = nil, pendingCount: @escaping @Sendable () throws -> Int,
        failedItems: @escaping @Sendable () throws -> [FailedOutboxItem] = { [] },
        waitingItems: @escaping @Sendable () throws -> [WaitingOutboxItem] = { [] }
    ) {
        self.name = name
        self.label = label ?? name.replacingOccurrences(of: "_", with: " ")
        self.pendingCount = pendingCount
        self.failedItems = failedItems
        self.waitingItems = waitingItems
    }

    /// The kind's counts now.
    /// - Throws: the store's error.
    public func status() throws -> OutboxKindStatus {
        OutboxKindStatus(
            name: name, label: label, pending: try pendingCount(), failed: try failedItems(),
            waiting: try waitingItems())
    }
}

/// One kind's counts at a moment (for `status` and `sync`).
public struct OutboxKindStatus: Sendable, Equatable {
    /// The kind's JSON key.
    public var name: String
    /// The human label.
    public var label: String
    /// Items not yet synced and not failed.
    public var pending: Int
    /// Items failed for good, oldest first.
    public var failed: [FailedOutboxItem]
    /// Pending items that wait with a reason, oldest first.
    public var waiting: [WaitingOutboxItem]

    /// Counts.
    public init(
        name: String, label: String, pending: Int, failed: [FailedOutboxItem], waiting: [WaitingOutboxItem] = []
    ) {
        self.name = name
        self.label = label
        self.pending = pending
        self.failed = failed
        self.waiting = waiting
    }
}

/// One outbox item that is pending but not being sent, and why (its `deferred_reason`): its parent is still
/// a draft, its photo failed, it waits out its backoff (issue 18). `status` lists them, so a stuck item
/// names what unblocks it.
public struct WaitingOutboxItem: Sendable, Equatable, Codable {
    /// The kind, singular (`inspection`, `issue`, …), as its feature names it.
    public var kind: String
    /// The item's local id.
    public var localID: String
    /// What it waits for, as the sentence the push recorded ("waits for inspection … to be submitted").
    public var reason: String

    /// A waiting item.
    public init(kind: String, localID: String, reason: String) {
        self.kind = kind
        self.localID = localID
        self.reason = reason
    }
}
