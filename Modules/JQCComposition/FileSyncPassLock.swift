import Foundation
import JQCKit
import JQCSync

/// The live ``/JQCSync/SyncPassLock``: `flock` on `<data-dir>/sync.lock` (issue 15), so the REPL, a background
/// timer and scripts sharing a data directory run one sync pass at a time. A process that ends, however
/// it ends, frees the lock.
public struct FileSyncPassLock: SyncPassLock {
    /// The lock file.
    public let lock: FileLock

    /// A pass lock on `url` (created, empty, at first use).
    public init(url: URL) { lock = FileLock(url: url) }

    /// Takes the lock without waiting; `nil` when another pass holds it.
    /// - Throws: `FileLock.LockError` when the lock file cannot be used.
    public func tryAcquire() throws -> (any SyncPassLockHold)? {
        try lock.tryAcquire().map(Hold.init)
    }

    /// Waits (until cancelled) for the lock.
    /// - Throws: `CancellationError`, `FileLock.LockError`.
    public func acquire() async throws -> any SyncPassLockHold {
        Hold(try await lock.acquire(timeout: nil))
    }

    private struct Hold: SyncPassLockHold {
        let hold: FileLockHold
        init(_ hold: FileLockHold) { self.hold = hold }
        func release() { hold.release() }
    }
}
