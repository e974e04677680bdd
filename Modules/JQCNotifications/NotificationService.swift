import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync
import Synchronization

/// What pushing the queued mark-read did.
public struct MarkReadPush: Sendable, Equatable {
    /// Ids the server accepted as read.
    public var pushed: [Int64] = []
    /// Ids left queued (offline, server trouble, backoff).
    public var queued: [Int64] = []
    /// Ids dropped from the queue because the server refused them for good (e.g. unknown ids); they stay
    /// read on this device.
    public var dropped: [Int64] = []

    /// A result.
    public init(pushed: [Int64] = [], queued: [Int64] = [], dropped: [Int64] = []) {
        self.pushed = pushed
        self.queued = queued
        self.dropped = dropped
    }
}

/// Notification polling, as seed 001 §8 step 7 and "Notification polling" describe it: the queued mark-read
/// is pushed first, then `GET /api/v1/notifications?since=<cursor>` fetches what is new; the cursor is the
/// largest `created_at` received (CONTRACT.md: never the device clock), persisted; each new unread
/// notification is announced once through the ``NotificationSink``.
///
/// Used by the sync pass (``NotificationsStage``), by the 60 s ``NotificationPoller`` and by the shell's
/// `notifications` command. Thread-safe; a pull and a pass may overlap without announcing anything twice
/// (the "is it new" decision is made inside the upsert's transaction).
public final class NotificationService: Sendable {
    /// `GET` path of the list (CONTRACT.md).
    public static let listPath = "/api/v1/notifications"
    /// `PATCH` path of mark-read (CONTRACT.md), body `{ids:[int]}`.
    public static let markReadPath = "/api/v1/notifications/mark-read"

    private let store: NotificationStore
    private let api: APIClient
    private let sink: any NotificationSink
    private let clock: any Clock
    private let logger: Logger
    private let outboxIdentity: @Sendable () async -> OutboxIdentity?
    /// Bumped by ``clearServerPulledData()``: a pull that started before a logout writes nothing.
    private let generation = Mutex<UInt64>(0)

    /// A service.
    /// - Parameters:
    ///   - store: the feature's tables.
    ///   - api: the API client (its session decides whose notifications these are).
    ///   - sink: where new notifications are announced (the composition root's ``NotificationRelay``).
    ///   - clock: the device clock — used for backoff and diagnostics only, never for the cursor.
    ///   - logger: the feature's log.
    ///   - outboxIdentity: whom its own pushes (poll, mark-read now) act for ([authorship], issue 20); `nil` admits
    ///     every queued mark-read.
    public init(
        store: NotificationStore, api: APIClient, sink: any NotificationSink, clock: any Clock,
        logger: Logger = .disabled, outboxIdentity: @escaping @Sendable () async -> OutboxIdentity? = { nil }
    ) {
        self.outboxIdentity = outboxIdentity
        self.store = store
        self.api = api
        self.sink = sink
        self.clock = clock
        self.logger = logger.labeled("notifications")
    }

    // MARK: Reading (local, offline)

    /// Every pulled notification, newest first.
    /// - Throws: `DatabaseError`.
    public func notifications() throws -> [NotificationItem] { try store.all() }

    /// How many pulled notifications are unread (the seed's badge, `unreadCount`).
    /// - Throws: `DatabaseError`.
    public func unreadCount() throws -> Int { try store.unreadCount() }

    /// The `since` cursor (the largest `created_at` received, as the server wrote it), or `nil`.
    /// - Throws: `DatabaseError`.
    public func cursor() throws -> String? { try store.cursor() }

    /// The mark-read batch waiting for the server, or `nil`.
    /// - Throws: `DatabaseError`.
    public func queuedMarkRead() throws -> QueuedMarkRead? { try store.queuedMarkRead() }

    // MARK: Mark read

    /// Marks every unread notification read on this device at once (one transaction) and queues the
    /// server call; the next pass (or ``pushQueuedMarkRead(_:)``) sends it (seed 001 rule 50's
    /// `markNotificationsViewed`; offline it stays queued).
    /// - Returns: the ids marked (empty when none was unread).
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func markAllRead() throws -> [Int64] {
        let ids = try store.markAllRead()
        if !ids.isEmpty { logger.info("marked \(ids.count) notification(s) read; queued for the server") }
        return ids
    }

    /// Sends the queued mark-read (`PATCH /api/v1/notifications/mark-read {"ids": […]}`), when due.
    ///
    /// Success takes the ids off the queue; a transient failure keeps them queued with the try counted as
    /// the outbox rules say; a refusal for good (a 4xx such as unknown ids, or out of tries) drops them from
    /// the queue with a log line — they stay read here and it is not an error for the inspector.
    /// - Parameter pass: the outbox rules and whether this is an explicit pass.
    /// - Returns: what happened to each id.
    /// - Throws: `SyncStopError` when the pass must stop (offline, signed out, update required); the ids stay
    ///   queued. `DatabaseError` from the store.
    public func pushQueuedMarkRead(_ pass: SyncPass) async throws -> MarkReadPush {
        let result = try await OutboxDriver.push(MarkReadFeed(store: store, api: api), pass: pass)
        var push = MarkReadPush()
        for (batch, outcome) in result.outcomes {
            switch outcome {
            case .pushed: push.pushed += batch.ids
            case .waiting, .deferred: push.queued += batch.ids
            case .failed(let reason):
                logger.warning("dropped queued mark-read for notification(s) \(batch.ids): \(reason)")
                push.dropped += batch.ids
            }
        }
        return push
    }

    // MARK: Pull

    /// Fetches what is new since the cursor (everything when there is none), upserts it, advances the
    /// cursor to the largest `created_at` received, and announces each new unread notification once.
    /// - Returns: the store's account of the pull (an empty one when a logout cleared the data meanwhile).
    /// - Throws: `APIError` from the request, ``NotificationsError`` when the reply is not a list,
    ///   `DatabaseError` from the store.
    @discardableResult
    public func pullNew() async throws -> NotificationUpsert {
        let started = generation.withLock { $0 }
        let since = try store.cursor()
        let query = since.map { [URLQueryItem(name: "since", value: $0)] } ?? []
        let reply = try await api.getJSON(Self.listPath, query: query)
        let list: DecodedList<NotificationItem>
        do {
            list = try DecodedList<NotificationItem>.decode(reply) { element, path in
                try NotificationItem(reply: element, at: path)
            }
        } catch {
            throw NotificationsError(
                .unexpectedReply,
                "The server's notification list was not a list; notifications will be fetched again on the next sync.")
        }
        for failure in list.failures { logger.warning("a notification could not be read: \(failure.reason)") }
        let items = list.items
        guard
            let result = try store.upsert(
                items, receivedAt: clock.now,
                shouldApply: { generation.withLock { $0 } == started })
        else {
            logger.info("discarded a notification pull that finished after sign-out")
            return NotificationUpsert(new: [], received: 0, cursor: nil)
        }
        for item in result.new { sink.deliver(item) }
        var upsert = result
        upsert.problems = list.problems("notifications")
        return upsert
    }

    /// One notifications step: push the queued mark-read, then pull (the stage's and the poller's work).
    /// - Returns: the stage report (`pushed` = ids marked read on the server, `pulled` = notifications
    ///   received, `deferred` = ids still queued).
    /// - Throws: as ``pushQueuedMarkRead(_:)`` and ``pullNew()``.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        let push = try await pushQueuedMarkRead(pass)
        let pull = try await pullNew()
        var report = StageReport.pull(pulled: pull.received, problems: pull.problems)
        report.pushed = push.pushed.count
        report.deferred = push.queued.count
        return report
    }

    /// One tick of the ``NotificationPoller``: ``run(_:)`` under an automatic pass's rules (backoff respected).
    /// Failures are logged, never thrown: polling is best-effort and the next tick tries again.
    public func poll() async {
        let pass = SyncPass(
            isExplicit: false, clock: clock, classify: SyncFailure.classify, logger: logger,
            identity: await outboxIdentity())
        do {
            let report = try await run(pass)
            logger.debug("poll: pushed \(report.pushed), pulled \(report.pulled), queued \(report.deferred)")
        } catch {
            logger.info("notification poll failed (next tick tries again): \(SyncFailure.classify(error))")
        }
    }

    /// Sends the queued mark-read now, because the inspector asked (the shell's `notifications --mark-read`):
    /// every queued id is tried at once, whatever the backoff.
    /// - Returns: what happened; offline, signed out or refused builds leave everything queued.
    /// - Throws: `DatabaseError` only.
    public func pushQueuedMarkReadNow() async throws -> MarkReadPush {
        let pass = SyncPass(
            isExplicit: true, clock: clock, classify: SyncFailure.classify, logger: logger,
            identity: await outboxIdentity())
        do {
            return try await pushQueuedMarkRead(pass)
        } catch is SyncStopError {
            return MarkReadPush(queued: try store.queuedMarkReads().flatMap(\.ids))
        }
    }

    // MARK: Logout

    /// Erases the pulled notifications and the cursor (seed 001 §21, rule 42 and
    /// "resetNotificationPoller … clears cursor"), and makes a pull already in flight write nothing.
    /// - Throws: `DatabaseError`.
    public func clearServerPulledData() throws {
        generation.withLock { $0 &+= 1 }
        try store.clearNotifications()
    }
}

/// The queued mark-read as JQCSync's push driver sees it: one batch of every queued id, sent as
/// `PATCH /api/v1/notifications/mark-read {"ids": […]}`; the queue's rows are deleted once sent or refused.
struct MarkReadFeed: OutboxFeed {
    let store: NotificationStore
    let api: APIClient

    var database: DatabaseQueue { store.database }
    var table: OutboxTable { NotificationStore.readsOutbox }

    func pendingItems() throws -> [QueuedMarkRead] { try store.queuedMarkReads() }

    func send(_ batch: QueuedMarkRead, pass: SyncPass) async throws -> JSONValue {
        try await api.sendJSON(
            .patch, path: NotificationService.markReadPath, body: ["ids": .array(batch.ids.map { .int($0) })])
    }
}
