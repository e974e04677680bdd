import Foundation

/// Keeps sync passes of every process sharing one data directory from overlapping (issue 15): the
/// REPL's automatic passes, a background timer's `sync --background` and scripts' `sync`. Inside one
/// process ``SyncEngine`` already runs one pass at a time; this makes the outbox single-flight across
/// processes, so two processes never POST the same item at once. The composition root injects the live
/// one (`flock` on `<data-dir>/sync.lock`); without one, passes are only serialised in-process.
public protocol SyncPassLock: Sendable {
    /// Takes the lock if no other pass holds it, without waiting.
    /// - Returns: the hold, or `nil` when another pass (another process) holds it.
    /// - Throws: the lock's own error (e.g. the lock file cannot be opened), as a sentence.
    func tryAcquire() throws -> (any SyncPassLockHold)?
    /// Waits until the lock is free (an explicit pass), until the task is cancelled.
    /// - Returns: the hold.
    /// - Throws: `CancellationError`, or the lock's own error.
    func acquire() async throws -> any SyncPassLockHold
}

/// A held ``SyncPassLock``; ``release()`` frees it (a process that ends frees it too).
public protocol SyncPassLockHold: Sendable {
    /// Frees the lock; later calls do nothing.
    func release()
}
