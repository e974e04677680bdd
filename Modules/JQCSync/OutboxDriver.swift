import Foundation
import JQCKit
import JQCStorage

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
        for item in try feed.pendingItems() {
            if Task.isCancelled { throw SyncStopError(.cancelled, "Sync was cancelled; everything stays queued.") }
            let (outcome, accepted) = try await handle(item, feed: feed, pass: pass)
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
        return result
    }

    /// One item: its outcome, and whether the server accepted it in this pass (counted as pushed).
    private static func handle<Feed: OutboxFeed>(_ item: Feed.Item, feed: Feed, pass: SyncPass) async throws
        -> (OutboxOutcome, accepted: Bool)
    {
        var readiness = admission(of: item.outbox, in: pass)
        if readiness == .ready { readiness = try feed.readiness(of: item) }
        switch readiness {
        case .ready:
            break
        case .waiting(let reason):
            try wait(item, reason: reason, feed: feed)
            return (.waiting(reason), false)
        case .failed(let reason):
            try fail(item, reason: reason, feed: feed, pass: pass)
            return (.failed(reason), false)
        }
        guard pass.shouldAttempt(attempts: item.outbox.attempts, lastAttempt: item.outbox.lastAttemptAt) else {
            let reason = backoffReason(item.outbox)
            try wait(item, reason: reason, feed: feed)
            return (.waiting(reason), false)
        }
        let answer: Feed.Answer
        do {
            answer = try await feed.send(item, pass: pass)
        } catch {
            return (try settleFailure(error, item: item, feed: feed, pass: pass), false)
        }
        let accepted = feed.countsAsPushed(item)
        do {
            try feed.database.write { db in
                try feed.table.markSynced(db, item.outboxKeys, at: pass.clock.now)
                try feed.recordSent(item, answer: answer, pass: pass, in: db)
            }
        } catch {
            // The server has it but the local record could not be written: a counted local failure, so the
            // item is tried again (the server dedupes on its local id) instead of being lost.
            return (try settleFailure(error, item: item, feed: feed, pass: pass), accepted)
        }
        do {
            try feed.sentCommitted(item, answer: answer)
        } catch {
            pass.logger.warning("after sending \(feed.table.name) \(item.outboxKeys): \(error)")
        }
        return (.pushed, accepted)
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
}
