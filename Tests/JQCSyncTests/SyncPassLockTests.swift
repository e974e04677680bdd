import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCSync

/// The pass lock over a real `flock` file, as the composition root builds it.
private struct FlockPassLock: SyncPassLock {
    let lock: FileLock
    func tryAcquire() throws -> (any SyncPassLockHold)? { try lock.tryAcquire().map(Hold.init) }
    func acquire() async throws -> any SyncPassLockHold { Hold(hold: try await lock.acquire(timeout: nil)) }
    struct Hold: SyncPassLockHold {
        let hold: FileLockHold
        func release() { hold.release() }
    }
}

/// An engine with one recording stage over a pass lock in a temporary directory.
private struct LockedWorld {
    let directory = TemporaryDirectory(prefix: "jqc-pass-lock")
    let lock: FileLock
    let log = SharedLog()
    let sync: SyncEngine

    init(stage: String, online: Bool = true) {
        lock = FileLock(url: directory.path("sync.lock"))
        sync = lockedEngine([RecordingStage(stage, log: log)], lock: lock, online: online)
    }
}

private func lockedEngine(_ stages: [any SyncStage], lock: FileLock, online: Bool = true) -> SyncEngine {
    SyncEngine(
        stages: stages, guards: SyncGuards(isOnline: { online }, isSignedIn: { true }), clock: ManualClock(),
        classify: SyncFailure.classify, jitter: { 1 }, passLock: FlockPassLock(lock: lock))
}

@Suite("SyncEngine: one pass at a time per data directory, across processes (issue 15)")
struct SyncPassLockTests {
    @Test("an automatic pass is skipped, running no stage, while another process holds the pass lock")
    func automaticSkips() async throws {
        let world = LockedWorld(stage: "photos")
        let (lock, log, sync) = (world.lock, world.log, world.sync)
        let other = try #require(try FileLock(url: lock.url).tryAcquire())  // another process's pass
        // An engine that waited instead of skipping says so in its snapshots: the other pass then ends, the wrong
        // engine gets the lock and runs the stage, and the expectations below fail instead of hanging. (No timer: a
        // timed release fired before the pass began on a loaded machine.) The deadline is only a last resort.
        let snapshots = await sync.snapshots()
        let watchdog = Task {
            for await snapshot in snapshots where snapshot.waitingForPassElsewhere {
                other.release()
                return
            }
        }
        defer { watchdog.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 600) { other.release() }
        await #expect {
            try await sync.sync(explicit: false)
        } throws: { error in
            (error as? SyncStopError)?.kind == .passRunningElsewhere
                && (error as? SyncStopError)?.message
                    == "Another jqc process is syncing this data directory; this automatic pass was skipped."
        }
        #expect(log.all.isEmpty)
        other.release()
        _ = try await sync.sync(explicit: false)
        #expect(log.all == ["photos"])
        #expect(try lock.tryAcquire() != nil, "the pass released the lock")
    }

    @Test("an explicit pass says it waits for the other process's pass, and runs once that pass ends")
    func explicitWaits() async throws {
        let world = LockedWorld(stage: "inspections")
        let (lock, log, sync) = (world.lock, world.log, world.sync)
        let other = try #require(try FileLock(url: lock.url).tryAcquire())
        let snapshots = await sync.snapshots()
        let pass = Task { try await sync.sync(explicit: true) }
        for await snapshot in snapshots where snapshot.waitingForPassElsewhere { break }
        #expect(log.all.isEmpty, "no stage runs while the other pass holds the lock")
        other.release()
        let report = try await pass.value
        #expect(report.stages.map(\.name) == ["inspections"])
        #expect(log.all == ["inspections!"])
        #expect(await sync.current.waitingForPassElsewhere == false)
    }

    @Test("a pass its guards stop takes no lock and does not wait: offline is said at once")
    func guardsFirst() async throws {
        let world = LockedWorld(stage: "photos", online: false)
        let (lock, log, sync) = (world.lock, world.log, world.sync)
        let other = try #require(try FileLock(url: lock.url).tryAcquire())
        defer { other.release() }
        await #expect {
            try await sync.sync(explicit: true)
        } throws: { error in
            (error as? SyncStopError)?.kind == .offline
        }
        #expect(log.all.isEmpty)
    }

    @Test("a lock file that cannot be used stops the pass with a sentence, running no stage")
    func unusableLock() async throws {
        let log = SharedLog()
        let sync = lockedEngine(
            [RecordingStage("photos", log: log)],
            lock: FileLock(url: URL(fileURLWithPath: "/nonexistent-jqc/sync.lock")))
        await #expect {
            try await sync.sync(explicit: true)
        } throws: { error in
            let stop = error as? SyncStopError
            return stop?.kind == .storeUnavailable
                && stop?.message.hasPrefix(
                    "Sync could not start: Could not use the lock file /nonexistent-jqc/sync.lock") == true
        }
        #expect(log.all.isEmpty)
    }
}
