import Foundation
import JQCKit

/// How the sync engine sees a failure, whatever layer produced it. JQCNetwork's errors are mapped
/// onto this by a ``SyncFailureClassifier`` (registered by the composition root).
public enum SyncFailure: Sendable, Equatable {
    /// No connection: the item stays pending; does not count as a try.
    case offline
    /// The server cannot be reached as configured (a refused certificate, plain http to a remote host, a redirect):
    /// like ``offline`` the pass stops and nothing counts as a try, but with its own sentence (what to fix).
    case unreachable(String)
    /// The request timed out: stays pending; does not count as a try (the server may never have seen it).
    case timeout
    /// A 5xx answer or an unreadable reply: stays pending; counts as a try (a real server answer).
    case server(String)
    /// 429: stays pending; counts as a try; `retryAfter` seconds when the server said.
    case rateLimited(retryAfter: Double?)
    /// Any other 4xx: the item is failed at once with the server's sentence (a poison item never wedges the queue).
    case rejected(String)
    /// The session is gone (refresh rejected): the pass stops, everything stays pending.
    case signedOut
    /// 426: the pass stops, everything stays pending.
    case updateRequired
    /// The pass was cancelled.
    case cancelled
    /// A local failure (store, file) for this item: stays pending, counts as a try, with the sentence.
    case local(String)
}

/// Maps any error to a ``SyncFailure``.
public typealias SyncFailureClassifier = @Sendable (any Error) -> SyncFailure

/// What to do with an outbox item after an attempt (SPEC.md §4 "Errors are classified").
public enum ItemDisposition: Sendable, Equatable {
    /// Leave it pending; `attempts` is the new try count to store.
    case keepPending(attempts: Int, reason: String)
    /// Mark it failed with the reason; never retried automatically (the inspector may retry or discard).
    case fail(reason: String)
    /// Stop the pass; the item stays as it was.
    case stopPass(SyncStopError)
}

/// The outbox rules: the 5-try limit that only real server answers count towards, and backoff with
/// jitter for automatic passes (an explicit sync tries every pending item at once).
public struct OutboxPolicy: Sendable {
    /// Tries (real server answers) before an item is failed: 5 (SPEC.md §4).
    public var maxAttempts: Int
    /// First backoff delay, seconds.
    public var baseDelay: Double
    /// Longest backoff delay, seconds.
    public var maxDelay: Double

    /// The defaults: 5 tries, backoff 30 s doubling to at most 30 minutes.
    public init(maxAttempts: Int = 5, baseDelay: Double = 30, maxDelay: Double = 1800) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// What to do after a failed attempt.
    /// - Parameters:
    ///   - failure: the classified failure.
    ///   - attempts: tries counted before this attempt.
    /// - Returns: the disposition; a counted try that reaches ``maxAttempts`` fails the item.
    public func disposition(after failure: SyncFailure, attempts: Int) -> ItemDisposition {
        switch failure {
        case .offline:
            return .stopPass(SyncStopError(.offline, "The server cannot be reached; everything stays queued."))
        case .unreachable(let message):
            return .stopPass(SyncStopError(.offline, message))
        case .timeout:
            return .keepPending(attempts: attempts, reason: "The server did not answer in time.")
        case .server(let message):
            return counted(attempts, reason: message)
        case .rateLimited:
            return counted(attempts, reason: "The server is busy (too many requests).")
        case .local(let message):
            return counted(attempts, reason: message)
        case .rejected(let message):
            return .fail(reason: Self.failedSentence(message))
        case .signedOut:
            return .stopPass(SyncStopError(.signedOut, "You are signed out; log in again to sync. Nothing was lost."))
        case .updateRequired:
            return .stopPass(
                SyncStopError(
                    .updateRequired,
                    "Update required: the server no longer accepts this version of jqc. Everything stays queued."))
        case .cancelled:
            return .stopPass(SyncStopError(.cancelled, "Sync was cancelled; everything stays queued."))
        }
    }

    private func counted(_ attempts: Int, reason: String) -> ItemDisposition {
        let next = attempts + 1
        if next >= maxAttempts {
            return .fail(reason: "\(Self.failedSentence(reason)) (gave up after \(next) tries)")
        }
        return .keepPending(attempts: next, reason: reason)
    }

    /// A failed item's sentence: `reason` without the advice to wait or try again (a failed item is never
    /// retried automatically, so "try again later" would promise what nothing does; issue 18). Sentences that
    /// advise trying again (`Try again later.`, `Your work is kept; try again in a moment.`) are dropped; the
    /// sentence is kept whole when that would leave nothing.
    public static func failedSentence(_ reason: String) -> String {
        let sentences = reason.split(separator: ". ", omittingEmptySubsequences: true).map(String.init)
        let kept = sentences.filter { sentence in
            let lower = sentence.lowercased()
            return !["try again", "will sync later", "will retry", "retried later"].contains { lower.contains($0) }
        }
        guard !kept.isEmpty, kept.count < sentences.count else { return reason }
        let text = kept.joined(separator: ". ")
        return text.hasSuffix(".") ? text : text + "."
    }

    /// Whether an automatic pass should try an item now (explicit passes try every pending item).
    /// - Parameters:
    ///   - attempts: counted tries so far.
    ///   - lastAttempt: when it was last tried, or `nil`.
    ///   - now: the clock's time.
    ///   - jitter: a factor in 0.5…1.5 (injected so tests are exact).
    public func isDue(attempts: Int, lastAttempt: Date?, now: Date, jitter: Double = 1) -> Bool {
        guard attempts > 0, let lastAttempt else { return true }
        return now.timeIntervalSince(lastAttempt) >= delay(attempts: attempts, jitter: jitter)
            || now < lastAttempt  // the clock jumped backwards: do not wait forever
    }

    /// The backoff delay after `attempts` counted tries, in seconds.
    public func delay(attempts: Int, jitter: Double = 1) -> Double {
        min(maxDelay, baseDelay * pow(2, Double(max(0, attempts - 1)))) * jitter
    }
}
