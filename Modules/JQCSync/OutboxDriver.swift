import Foundation
import JQCKit
import JQCStorage
import Synchronization

/// The one push loop (issue 16): sends a feature's outbox under ``OutboxPolicy`` (SPEC.md §4 "Errors are
/// classified"). Per item, in the feed's order:
///
/// 1. admission — whether this pass may send the item at all: only items of the signed-in user for the
///    current server (`admission(of:in:)`, [authorship] issue 20); others wait with the reason, uncounted;
/// 2. the feed's readiness: waiting items keep their state and record why in `deferred_reason`; items that
///    can never be sent fail with the feed's sentence;
/// 3. backoff: an automatic pass skips an item until its delay has passed (recording that as the reason it
///    waits); an explicit pass tries every item;
/// 4. the send: success marks it synced (with the feed's own writes, in one transaction); a failure is
///    classified — offline, signed out, update required or cancelled stop the pass with every item as it
///    was; timeouts keep it pending uncounted; 5xx, 429 and local failures keep it pending and count a try
///    (the 5th fails it); any other 4xx fails it at once with the server's sentence.
///
/// Pipelined (issue 17): the transaction recording a sent item (one per item: the feed's
/// ``OutboxFeed/keepAnswer(_:answer:pass:in:)``, then the record in a savepoint) commits on a background queue
/// while the next item's request is out; every write about the next item (its synced record, a counted try, a
/// failure, a waiting reason) comes after that commit, so items are still recorded one transaction each, in
/// the feed's order. A feed's ``OutboxFeed/readiness(of:)`` is therefore asked before the previous item's
/// record is committed (it must not depend on it). A crash before that commit loses nothing: the item is still
/// pending and is sent again by the next pass, exactly as after a crash between a reply and its record without
/// the overlap.
///
/// Group commit (issue 17): a record is written with ``/JQCStorage/DatabaseQueue/writeWithGroupCommit(_:)`` —
/// committed without waiting for its own fsync, flushed by one `fdatasync` together with the records committed
/// around it. A crash or `kill -9` of the process loses no committed record; a power cut may undo the records
/// not yet flushed (at most 64, of the last 20 ms and one flush: on loopback about twenty items, on a real
/// network the one or two the overlap already risked), which are then sent again, as the item whose reply a crash cut
/// off is (SPEC.md §4: the server dedupes on `local_id`). Whatever a record makes unneeded
/// (``OutboxFeed/sentCommitted(_:answer:)``: an issue's local photo files) waits until the record is on disk,
/// and the push returns only once every record is.
///
/// A failed item is never retried automatically; ``/JQCStorage/OutboxTable/retry(_:_:at:)`` puts it back.
public enum OutboxDriver {
    /// Pushes `feed`'s pending items.
    /// - Returns: the stage report's counts and every item's outcome.
    /// - Throws: ``SyncStopError`` to stop the pass (offline, signed out, update required, cancelled);
    ///   `DatabaseError` when the outbox cannot be read or written.
    public static func push<Feed: OutboxFeed>(_ feed: Feed, pass: SyncPass) async throws -> OutboxPushResult<Feed.Item>
    {
        var result = OutboxPushResult<Feed.Item>(report: StageReport(), outcomes: [])
        try feed.prepare(pass)
        var sent: Sent<Feed>?  // the last item the server accepted, its record not written yet
        var afterDisk = AfterDisk(database: feed.database)  // sentCommitted calls waiting for their record's flush
        do {
            for item in try feed.pendingItems() {
                if Task.isCancelled { throw SyncStopError(.cancelled, "Sync was cancelled; everything stays queued.") }
                switch try decide(item, feed: feed, pass: pass) {
                case .send:
                    let previous = sent.take()
                    let recording = previous.map { record($0, pass: pass) }
                    let reply: Result<Feed.Answer, any Error>
                    do { reply = .success(try await feed.send(item, pass: pass)) } catch { reply = .failure(error) }
                    if let previous, let recording {
                        try await settle(previous, recording, pass: pass, into: &result, afterDisk: &afterDisk)
                    }
                    switch reply {
                    case .success(let answer):
                        sent = Sent(feed: feed, item: item, answer: answer, accepted: feed.countsAsPushed(item))
                    case .failure(let error):
                        count(item, try settleFailure(error, item: item, feed: feed, pass: pass), into: &result)
                    }
                case .wait(let reason):
                    if let previous = sent.take() {
                        try await settle(previous, pass: pass, into: &result, afterDisk: &afterDisk)
                    }
                    try wait(item, reason: reason, feed: feed)
                    count(item, .waiting(reason), into: &result)
                case .fail(let reason):
                    if let previous = sent.take() {
                        try await settle(previous, pass: pass, into: &result, afterDisk: &afterDisk)
                    }
                    try fail(item, reason: reason, feed: feed, pass: pass)
                    count(item, .failed(reason), into: &result)
                }
            }
        } catch {
            // A stop (or a store error) leaves the items after it as they were, but the one already accepted is
            // recorded first: the server has it. Its files are released only once the records are on disk.
            if let previous = sent.take() {
                try await settle(previous, pass: pass, into: &result, afterDisk: &afterDisk)
            }
            try? await afterDisk.finish()
            throw error
        }
        if let previous = sent.take() { try await settle(previous, pass: pass, into: &result, afterDisk: &afterDisk) }
        try await afterDisk.finish()
        return result
    }

    /// What to do with one item before anything is written about it.
    private enum Decision {
        case send
        case wait(String)
        case fail(String)
    }

    /// Admission, the feed's readiness and backoff: reads only.
    private static func decide<Feed: OutboxFeed>(_ item: Feed.Item, feed: Feed, pass: SyncPass) throws -> Decision {
        var readiness = admission(of: item.outbox, in: pass)
        if readiness == .ready { readiness = try feed.readiness(of: item) }
        switch readiness {
        case .ready: break
        case .waiting(let reason): return .wait(reason)
        case .failed(let reason): return .fail(reason)
        }
        guard pass.shouldAttempt(attempts: item.outbox.attempts, lastAttempt: item.outbox.lastAttemptAt) else {
            return .wait(backoffReason(item.outbox))
        }
        return .send
    }

    /// Adds one item's outcome to the report, in the order items are handled.
    private static func count<Item: OutboxItem>(
        _ item: Item, _ outcome: OutboxOutcome, accepted: Bool = false, into result: inout OutboxPushResult<Item>
    ) {
        if accepted { result.report.pushed += 1 }
        switch outcome {
        case .pushed: break
        case .waiting(let reason):
            result.report.deferred += 1
            if result.report.waitingReason == nil { result.report.waitingReason = reason }
        case .deferred(let reason):
            result.report.deferred += 1
            result.report.deferredReason = reason
        case .failed: result.report.failed += 1
        }
        result.outcomes.append((item, outcome))
    }

    /// Starts an accepted item's synced transaction on ``commits``: the feed's
    /// ``OutboxFeed/keepAnswer(_:answer:pass:in:)``, then in a savepoint ``OutboxTable/markSynced(_:_:at:)``
    /// and the feed's ``OutboxFeed/recordSent(_:answer:pass:in:)``. When the savepoint fails, only it rolls
    /// back: what was kept commits, and the record's error is the outcome.
    private static func record<Feed: OutboxFeed>(_ sent: Sent<Feed>, pass: SyncPass) -> Recording {
        Recording {
            var recordFailure: (any Error)?
            let (_, ticket) = try sent.feed.database.writeWithGroupCommit { db in
                try sent.feed.keepAnswer(sent.item, answer: sent.answer, pass: pass, in: db)
                do {
                    try db.transaction { db in
                        try sent.feed.table.markSynced(db, sent.item.outboxKeys, at: pass.clock.now)
                        try sent.feed.recordSent(sent.item, answer: sent.answer, pass: pass, in: db)
                    }
                } catch {
                    recordFailure = error
                }
            }
            if let recordFailure { throw recordFailure }
            return ticket
        }
    }

    /// Records an accepted item now (nothing else is out) and counts it, as ``settle(_:_:pass:into:afterDisk:)``.
    private static func settle<Feed: OutboxFeed>(
        _ sent: Sent<Feed>, pass: SyncPass, into result: inout OutboxPushResult<Feed.Item>, afterDisk: inout AfterDisk
    ) async throws {
        try await settle(sent, record(sent, pass: pass), pass: pass, into: &result, afterDisk: &afterDisk)
    }

    /// Waits for an accepted item's record to commit, then counts it: pushed, or — when the record could not
    /// be written — a counted local failure, so the item is tried again (the server dedupes on its local id)
    /// instead of being lost. The feed's ``OutboxFeed/sentCommitted(_:answer:)`` runs once the record is on
    /// disk (``AfterDisk``).
    private static func settle<Feed: OutboxFeed>(
        _ sent: Sent<Feed>, _ recording: Recording, pass: SyncPass, into result: inout OutboxPushResult<Feed.Item>,
        afterDisk: inout AfterDisk
    ) async throws {
        switch await recording.committed() {
        case .success(let ticket):
            afterDisk.add(ticket) {
                do {
                    try sent.feed.sentCommitted(sent.item, answer: sent.answer)
                } catch {
                    pass.logger.warning("after sending \(sent.feed.table.name) \(sent.item.outboxKeys): \(error)")
                }
            }
            count(sent.item, .pushed, accepted: sent.accepted, into: &result)
        case .failure(let error):
            let outcome = try settleFailure(error, item: sent.item, feed: sent.feed, pass: pass)
            count(sent.item, outcome, accepted: sent.accepted, into: &result)
        }
    }

    /// Whether this pass may send an item at all: the one place a filter over every outbox item belongs.
    /// [authorship] (issue 20): an item made by another inspector or for another server waits with the reason
    /// ("waits for alex to sign in", "was made for server primary") — never tried against the wrong identity,
    /// never counted as a try, never deleted. A pass without an identity admits every item.
    static func admission(of state: OutboxState, in pass: SyncPass) -> OutboxReadiness {
        guard let identity = pass.identity else { return .ready }
        return OutboxAdmission.reason(for: state.author, identity: identity).map(OutboxReadiness.waiting) ?? .ready
    }

    /// The reason an item waits out its backoff, as a sentence.
    static func backoffReason(_ state: OutboxState) -> String {
        let tries = state.attempts == 1 ? "1 failed try" : "\(state.attempts) failed tries"
        return "waits before its next automatic try (after \(tries)" + (state.error.map { ": \($0)" } ?? "") + ")"
    }

    private static func wait<Feed: OutboxFeed>(_ item: Feed.Item, reason: String, feed: Feed) throws {
        guard item.outbox.deferredReason != reason else { return }  // written once, not on every pass
        try feed.database.write { db in try feed.table.markWaiting(db, item.outboxKeys, reason: reason) }
    }

    private static func fail<Feed: OutboxFeed>(_ item: Feed.Item, reason: String, feed: Feed, pass: SyncPass) throws {
        try feed.database.write { db in
            try feed.table.markFailed(db, item.outboxKeys, reason: reason, at: pass.clock.now)
            try feed.recordRefused(item, reason: reason, in: db)
        }
        pass.logger.warning("\(feed.table.name) \(item.outboxKeys) failed: \(reason)")
    }

    private static func settleFailure<Feed: OutboxFeed>(
        _ error: any Error, item: Feed.Item, feed: Feed, pass: SyncPass
    ) throws -> OutboxOutcome {
        switch pass.disposition(for: error, attempts: item.outbox.attempts) {
        case .keepPending(let attempts, let reason):
            try feed.database.write { db in
                try feed.table.markAttempt(db, item.outboxKeys, attempts: attempts, reason: reason, at: pass.clock.now)
            }
            pass.logger.info("\(feed.table.name) \(item.outboxKeys) kept pending (try \(attempts)): \(reason)")
            return .deferred(reason)
        case .fail(let reason):
            try fail(item, reason: reason, feed: feed, pass: pass)
            return .failed(reason)
        case .stopPass(let stop):
            throw stop
        }
    }

    /// The queue the synced transactions commit on while the next request is out (one at a time: the driver
    /// waits for each before it writes anything else).
    static let commits = DispatchQueue(label: "jqc.outbox.commits", qos: .userInitiated)
}

/// An item the server accepted, with its answer, whose record is still to be written.
private struct Sent<Feed: OutboxFeed>: Sendable {
    let feed: Feed
    let item: Feed.Item
    let answer: Feed.Answer
    let accepted: Bool
}

extension Optional {
    /// The value, leaving `nil` behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}

/// One accepted item's synced transaction, started on ``OutboxDriver/commits`` as soon as it is made. Not
/// generic (issue 17): a generic class and its state cost a runtime metadata lookup at every use in the
/// unspecialised driver, several per item.
private final class Recording: Sendable {
    private let state = Mutex<RecordingState>(.running)

    init(_ commit: @escaping @Sendable () throws -> CommitTicket) {
        OutboxDriver.commits.async { [self] in
            let outcome = Result<CommitTicket, any Error> { try commit() }
            let waiting = state.withLock { state -> CheckedContinuation<Result<CommitTicket, any Error>, Never>? in
                defer { state = .done(outcome) }
                if case .awaited(let continuation) = state { return continuation }
                return nil
            }
            waiting?.resume(returning: outcome)
        }
    }

    /// The commit's outcome (its group-commit ticket), once it has happened (at once when it already has: no
    /// suspension).
    func committed() async -> Result<CommitTicket, any Error> {
        if case .done(let outcome) = state.withLock({ $0 }) { return outcome }
        return await withCheckedContinuation { continuation in
            let outcome = state.withLock { state -> Result<CommitTicket, any Error>? in
                if case .done(let outcome) = state { return outcome }
                state = .awaited(continuation)
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }
}

/// Where a ``Recording``'s commit is.
private enum RecordingState {
    case running
    case awaited(CheckedContinuation<Result<CommitTicket, any Error>, Never>)
    case done(Result<CommitTicket, any Error>)
}

/// The feeds' ``OutboxFeed/sentCommitted(_:answer:)`` calls waiting for their record to be on disk (group
/// commit, issue 17): that work may delete what only the record makes unneeded (an issue's local photo
/// files), so it must not run while a power cut could still undo the record. Run in the records' order.
private struct AfterDisk {
    let database: DatabaseQueue
    private var waiting: [(ticket: CommitTicket, work: () -> Void)] = []
    /// The newest record's ticket: the push returns once it is on disk.
    private var newest: CommitTicket?

    init(database: DatabaseQueue) { self.database = database }

    /// Runs `work` now when `ticket` (and every earlier record) is on disk, else once it is; runs any earlier
    /// work that became ready meanwhile first.
    mutating func add(_ ticket: CommitTicket, _ work: @escaping () -> Void) {
        newest = max(newest ?? ticket, ticket)
        waiting.append((ticket, work))
        runReady()
    }

    /// Waits until every record so far is on disk, then runs what waited.
    /// - Throws: ``/JQCStorage/DatabaseError`` when the flush failed (what waited is not run: the files stay,
    ///   and the photos stage releases them once their owner reads as synced).
    mutating func finish() async throws {
        if let newest { try await database.waitUntilDurable(newest) }
        runReady()
    }

    private mutating func runReady() {
        while let first = waiting.first, database.isDurable(first.ticket) {
            waiting.removeFirst()
            first.work()
        }
    }
}
