import Foundation
import JQCKit

/// What a stage is given for one pass: whether it is explicit, the clock, and the outbox rules.
public struct SyncPass: Sendable {
    /// An explicit sync (the inspector's Sync Now, the shell's `sync`): every pending item is tried at once.
    /// Automatic passes respect backoff.
    public let isExplicit: Bool
    /// The pass's clock.
    public let clock: any Clock
    /// The outbox rules.
    public let policy: OutboxPolicy
    /// Maps an error to a ``SyncFailure``.
    public let classify: SyncFailureClassifier
    /// The logger for this pass.
    public let logger: Logger
    /// Whom the pass pushes for ([authorship], issue 20): only items of this user, for this server, are sent;
    /// `nil` admits every item (a tool or test driving one feed).
    public let identity: OutboxIdentity?
    private let jitter: @Sendable () -> Double

    /// A pass context.
    public init(
        isExplicit: Bool, clock: any Clock, policy: OutboxPolicy = OutboxPolicy(),
        classify: @escaping SyncFailureClassifier, logger: Logger = .disabled,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.5...1.5) }, identity: OutboxIdentity? = nil
    ) {
        self.identity = identity
        self.isExplicit = isExplicit
        self.clock = clock
        self.policy = policy
        self.classify = classify
        self.logger = logger
        self.jitter = jitter
    }

    /// Whether to try an item in this pass: always in an explicit pass; after its backoff otherwise.
    public func shouldAttempt(attempts: Int, lastAttempt: Date?) -> Bool {
        isExplicit || policy.isDue(attempts: attempts, lastAttempt: lastAttempt, now: clock.now, jitter: jitter())
    }

    /// The disposition for a failed attempt of an item with `attempts` counted tries.
    public func disposition(for error: any Error, attempts: Int) -> ItemDisposition {
        if error is CancellationError { return policy.disposition(after: .cancelled, attempts: attempts) }
        if let stop = error as? SyncStopError { return .stopPass(stop) }
        return policy.disposition(after: classify(error), attempts: attempts)
    }
}
