import Foundation
import JQCKit
import Synchronization
import Testing

@testable import JQCSync

/// A stage that records its runs into a shared log and does what it is told.
final class RecordingStage: SyncStage {
    let name: String
    let direction: SyncDirection
    let constraints: [StageConstraint]
    let isBestEffort: Bool
    let log: Mutex<[String]>
    let behaviour: @Sendable (SyncPass) async throws -> StageReport

    init(
        _ name: String, after: [String] = [], bestEffort: Bool = false, direction: SyncDirection = .push,
        log: SharedLog,
        behaviour: @escaping @Sendable (SyncPass) async throws -> StageReport = { _ in StageReport(pushed: 1) }
    ) {
        self.name = name
        self.constraints = after.map(StageConstraint.after)
        self.isBestEffort = bestEffort
        self.direction = direction
        self.log = Mutex([])
        self.behaviour = behaviour
        self.shared = log
    }
    let shared: SharedLog

    func run(_ pass: SyncPass) async throws -> StageReport {
        shared.append("\(name)\(pass.isExplicit ? "!" : "")")
        return try await behaviour(pass)
    }
}

final class SharedLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }

private let classify: SyncFailureClassifier = { error in
    if let failure = error as? TestFailure { return failure.failure }
    return .server("\(error)")
}
struct TestFailure: Error { let failure: SyncFailure }

private func engine(
    _ stages: [any SyncStage], online: Bool = true, signedIn: Bool = true, updateRequired: Bool = false,
    clock: ManualClock = ManualClock()
) throws -> SyncEngine {
    SyncEngine(
        stages: try StageOrder.sorted(stages),
        guards: SyncGuards(isOnline: { online }, isSignedIn: { signedIn }, isUpdateRequired: { updateRequired }),
        clock: clock, classify: classify, jitter: { 1 })
}

@Suite("SyncEngine")
struct SyncEngineTests {
    @Test("stages run where the transport may block (issue 17: requests inline, no thread hop per request)")
    func stagesMayBlock() async throws {
        let log = SharedLog()
        let seen = Mutex<[Bool]>([])
        let stage = RecordingStage("inspections", log: log) { _ in
            seen.withLock { $0.append(BlockingTaskExecutor.mayBlock) }
            return StageReport(pushed: 1)
        }
        let sync = try engine([stage])
        _ = try await sync.sync(explicit: true)
        _ = try await sync.sync(explicit: false)
        #expect(seen.withLock { $0 } == [true, true])
        #expect(BlockingTaskExecutor.mayBlock == false)
    }

    @Test("stages run in the order their constraints declare, whatever the registration order")
    func order() async throws {
        let log = SharedLog()
        let sync = try engine([
            RecordingStage("issues", after: ["inspections"], log: log), RecordingStage("photos", log: log),
            RecordingStage("inspections", after: ["photos"], log: log),
        ])
        let report = try await sync.sync(explicit: true)
        #expect(log.all == ["photos!", "inspections!", "issues!"])
        #expect(report.stages.map(\.name) == ["photos", "inspections", "issues"])
        #expect(report.stages.map(\.pushed) == [1, 1, 1])
        #expect(await sync.current.lastSyncAt != nil)
    }

    @Test("a best-effort stage's failure is reported and never blocks the pipeline")
    func bestEffort() async throws {
        let log = SharedLog()
        let sync = try engine([
            RecordingStage("dashboard", bestEffort: true, log: log) { _ in throw Boom() },
            RecordingStage("notifications", log: log),
        ])
        let report = try await sync.sync(explicit: false)
        #expect(log.all == ["dashboard", "notifications"])
        #expect(report.stages[0].error == "boom")
        #expect(report.stoppedBy == nil)
        #expect(await sync.current.lastError == "dashboard: boom")
    }

    @Test("a failing push stage that is not best-effort stops the pass; the pass is reported, not thrown")
    func requiredStageStops() async throws {
        let log = SharedLog()
        let sync = try engine([
            RecordingStage("photos", direction: .push, log: log) { _ in throw Boom() },
            RecordingStage("inspections", direction: .push, log: log),
            RecordingStage("reference", direction: .pull, log: log),
        ])
        let report = try await sync.sync(explicit: true)
        #expect(log.all == ["photos!"])
        #expect(report.stoppedBy?.kind == .stageFailed)
        #expect(report.stoppedBy?.message == "Sync stopped at photos: boom")
    }

    @Test("a failing pull stage never stops the pulls after it (issue 21); a stop-error still stops the pass")
    func pullsStandAlone() async throws {
        let log = SharedLog()
        let sync = try engine([
            RecordingStage("reference", direction: .pull, log: log) { _ in throw Boom() },
            RecordingStage("scheduled", direction: .pull, log: log),
        ])
        let report = try await sync.sync(explicit: true)
        #expect(log.all == ["reference!", "scheduled!"])
        #expect(report.stoppedBy == nil)
        #expect(report.stages.map(\.error) == ["boom", nil])
        #expect(await sync.current.lastError == "reference: boom")

        let stopped = SharedLog()
        let offline = try engine([
            RecordingStage("reference", direction: .pull, log: stopped) { _ in throw SyncStopError(.offline, "Offline.")
            },
            RecordingStage("scheduled", direction: .pull, log: stopped),
        ])
        await #expect(throws: SyncStopError.self) { try await offline.sync(explicit: true) }
        #expect(stopped.all == ["reference!"])
    }

    @Test("offline, signed out and update required stop the pass before any stage runs, with sentences")
    func guards() async throws {
        let log = SharedLog()
        let stage = RecordingStage("photos", log: log)
        await #expect(
            throws: SyncStopError(
                .offline, "You are offline; everything stays queued and will sync when you are back online.")
        ) {
            try await engine([stage], online: false).sync(explicit: true)
        }
        await #expect(throws: SyncStopError(.signedOut, "You are not signed in; log in to sync. Nothing was lost.")) {
            try await engine([stage], signedIn: false).sync(explicit: true)
        }
        await #expect { try await engine([stage], updateRequired: true).sync(explicit: true) } throws: { error in
            (error as? SyncStopError)?.kind == .updateRequired
        }
        #expect(log.all.isEmpty)
    }

    @Test("a 426 in a stage stops the pass and the stages after it do not run")
    func updateRequiredMidPass() async throws {
        let log = SharedLog()
        let sync = try engine([
            RecordingStage("photos", log: log) { _ in throw TestFailure(failure: .updateRequired) },
            RecordingStage("inspections", log: log),
        ])
        await #expect { try await sync.sync(explicit: true) } throws: { error in
            (error as? SyncStopError)?.kind == .updateRequired
        }
        #expect(log.all == ["photos!"])
        #expect(await sync.current.lastError?.hasPrefix("Update required") == true)
    }

    @Test("the last error survives until the next pass ends, and a completed pass clears it (issue 18)")
    func lastErrorCleared() async throws {
        let log = SharedLog()
        let fail = Mutex(true)
        let stage = RecordingStage("dashboard", bestEffort: true, log: log) { _ in
            if fail.withLock({ $0 }) { throw Boom() }
            return StageReport(pulled: 1)
        }
        let sync = try engine([stage])
        try await sync.sync(explicit: false)
        #expect(await sync.current.lastError == "dashboard: boom")
        fail.withLock { $0 = false }
        let snapshots = await sync.snapshots()
        try await sync.sync(explicit: false)
        #expect(await sync.current.lastError == nil)
        // Every state published while the pass ran still showed the old error; only its end cleared it.
        var seen: [SyncSnapshot] = []
        for await snapshot in snapshots {
            seen.append(snapshot)
            if snapshot.runningStage == nil, snapshot.lastError == nil { break }
        }
        #expect(seen.count >= 3)
        #expect(seen.dropLast().allSatisfy { $0.lastError == "dashboard: boom" })
        #expect(seen.contains { $0.runningStage == "dashboard" })
    }

    @Test("triggers during a pass are coalesced into exactly one more pass")
    func singleFlight() async throws {
        let log = SharedLog()
        let gate = AsyncGate()
        let first = Mutex(true)
        let stage = RecordingStage("photos", log: log) { _ in
            if first.withLock({
                let was = $0; $0 = false; return was
            }) {
                await gate.wait()
            }
            return StageReport(pushed: 1)
        }
        let sync = try engine([stage])
        let running = Task { try await sync.sync(explicit: false) }
        while log.all.isEmpty { await Task.yield() }
        let triggers = (0..<5).map { _ in Task { try await sync.sync(explicit: false) } }
        for _ in 0..<50 { await Task.yield() }
        await gate.open()
        _ = try await running.value
        for trigger in triggers { _ = try await trigger.value }
        #expect(log.all == ["photos", "photos"])
    }

    @Test(
        "cancelling an explicit pass that waits behind an automatic one stops both; no stage runs for it",
        .timeLimit(.minutes(1))  // a regression leaves the automatic pass waiting: the limit ends the test
    )
    func cancelWhileWaitingBehindAutomatic() async throws {
        let log = SharedLog()
        let first = Mutex(true)
        // The automatic pass's stage is a request in flight: it ends only when its pass is cancelled.
        let released = AsyncGate()
        let stage = RecordingStage("inspections", log: log) { _ in
            if first.withLock({
                let was = $0; $0 = false; return was
            }) {
                await withTaskCancellationHandler {
                    await released.wait()
                } onCancel: {
                    Task { await released.open() }
                }
                if Task.isCancelled { throw SyncStopError(.cancelled, "Sync was cancelled; everything stays queued.") }
            }
            return StageReport(pushed: 1)
        }
        let sync = try engine([stage])
        let automatic = Task { try await sync.sync(explicit: false) }
        while log.all.isEmpty { await Task.yield() }
        let explicit = Task { try await sync.sync(explicit: true) }
        for _ in 0..<50 { await Task.yield() }
        explicit.cancel()
        // Should the automatic pass not be cancelled, the time limit cancels this test, which releases the stage
        // so the expectations below fail instead of waiting forever.
        await withTaskCancellationHandler {
            let explicitStop = await #expect(throws: SyncStopError.self) { try await explicit.value }
            #expect(explicitStop?.kind == .cancelled)
            let automaticStop = await #expect(throws: SyncStopError.self, "the automatic pass was cancelled too") {
                try await automatic.value
            }
            #expect(automaticStop?.kind == .cancelled)
        } onCancel: {
            Task { await released.open() }
        }
        #expect(log.all == ["inspections"], "the explicit pass ran no stage")
    }

    @Test("snapshots are published as stages run")
    func snapshots() async throws {
        let log = SharedLog()
        let sync = try engine([RecordingStage("photos", log: log)])
        let stream = await sync.snapshots()
        try await sync.sync(explicit: true)
        var seen: [String?] = []
        for await snapshot in stream {
            seen.append(snapshot.runningStage)
            if snapshot.lastSyncAt != nil { break }
        }
        #expect(seen.contains("photos"))
        #expect(seen.last == .some(nil))
    }
}

/// A one-shot gate for ordering test steps without sleeping.
actor AsyncGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}

@Suite("Outbox policy")
struct OutboxPolicyTests {
    let policy = OutboxPolicy()

    @Test("5xx, 429 and unreadable replies count towards the 5-try limit; the fifth fails the item")
    func serverAnswersCount() {
        #expect(
            policy.disposition(after: .server("The server failed (500)."), attempts: 0)
                == .keepPending(attempts: 1, reason: "The server failed (500)."))
        #expect(
            policy.disposition(after: .rateLimited(retryAfter: 3), attempts: 3)
                == .keepPending(attempts: 4, reason: "The server is busy (too many requests)."))
        #expect(
            policy.disposition(after: .server("The server failed (503)."), attempts: 4)
                == .fail(reason: "The server failed (503). (gave up after 5 tries)"))
    }

    @Test("timeouts never count as a try; offline stops the pass")
    func transientDoNotCount() {
        #expect(
            policy.disposition(after: .timeout, attempts: 4)
                == .keepPending(attempts: 4, reason: "The server did not answer in time."))
        if case .stopPass(let stop) = policy.disposition(after: .offline, attempts: 4) {
            #expect(stop.kind == .offline)
        } else {
            Issue.record("offline should stop the pass")
        }
    }

    @Test("a rejected item (other 4xx) is failed at once with the server's sentence")
    func rejectedFailsAtOnce() {
        #expect(
            policy.disposition(after: .rejected("form_data contains a local:// path"), attempts: 0)
                == .fail(reason: "form_data contains a local:// path"))
    }

    @Test("backoff doubles from 30 s up to 30 minutes and applies to automatic passes only")
    func backoff() {
        #expect(policy.delay(attempts: 1) == 30)
        #expect(policy.delay(attempts: 3) == 120)
        #expect(policy.delay(attempts: 20) == 1800)
        #expect(policy.delay(attempts: 2, jitter: 1.5) == 90)
        let clock = ManualClock()
        let last = clock.now
        clock.advance(by: 59)
        let automatic = SyncPass(isExplicit: false, clock: clock, classify: { _ in .timeout }, jitter: { 1 })
        let explicit = SyncPass(isExplicit: true, clock: clock, classify: { _ in .timeout }, jitter: { 1 })
        #expect(!automatic.shouldAttempt(attempts: 2, lastAttempt: last))
        #expect(explicit.shouldAttempt(attempts: 2, lastAttempt: last))
        clock.advance(by: 1)
        #expect(automatic.shouldAttempt(attempts: 2, lastAttempt: last))
    }

    @Test("a clock that jumped backwards does not strand an item in backoff")
    func clockJumpBackwards() {
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(policy.isDue(attempts: 3, lastAttempt: now.addingTimeInterval(3600), now: now))
    }
}

@Suite("Connectivity and scheduler")
struct ConnectivityTests {
    @Test("the monitor learns the server's today and clock offset from /health")
    func learnsToday() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_784_000_000))
        let health = ServerHealth(
            serverTime: Date(timeIntervalSince1970: 1_784_000_600), today: try #require(CalendarDay("2026-07-14")),
            timeZone: "America/New_York")
        let monitor = ConnectivityMonitor(probe: { health }, overrideStore: InMemoryOverrideStore(), clock: clock)
        #expect(await monitor.probeNow())
        #expect(await monitor.serverToday == CalendarDay("2026-07-14"))
        #expect(await monitor.clockOffset == 600)
    }

    @Test("the manual offline switch means no probe leaves, and switching back online probes and publishes")
    func manualOverride() async throws {
        let probes = Mutex(0)
        let store = InMemoryOverrideStore()
        let monitor = ConnectivityMonitor(
            probe: {
                probes.withLock { $0 += 1 }
                return ServerHealth(serverTime: Date(), today: try #require(CalendarDay("2026-07-14")), timeZone: "UTC")
            }, overrideStore: store, clock: ManualClock())
        let transitions = await monitor.transitions()
        try await monitor.setForcedOffline(true)
        #expect(await monitor.isOnline == false)
        #expect(await monitor.probeNow() == false)
        #expect(probes.withLock { $0 } == 0)
        try await monitor.setForcedOffline(false)
        #expect(probes.withLock { $0 } == 1)
        var iterator = transitions.makeAsyncIterator()
        #expect(await iterator.next() == false)
        #expect(await iterator.next() == true)
        #expect(store.loadForcedOffline() == false)
    }

    @Test("a failed probe publishes offline, a later good one online")
    func probeTransitions() async {
        let up = Mutex(false)
        let monitor = ConnectivityMonitor(
            probe: {
                guard up.withLock({ $0 }) else { throw Boom() }
                return ServerHealth(serverTime: Date(), today: try #require(CalendarDay("2026-07-14")), timeZone: "UTC")
            }, overrideStore: InMemoryOverrideStore(), clock: ManualClock())
        let transitions = await monitor.transitions()
        #expect(await monitor.probeNow() == false)
        up.withLock { $0 = true }
        #expect(await monitor.probeNow() == true)
        var iterator = transitions.makeAsyncIterator()
        #expect(await iterator.next() == false)
        #expect(await iterator.next() == true)
    }

    @Test("the scheduler runs an automatic pass each interval of the injected clock")
    func periodicPass() async throws {
        let clock = ManualClock()
        let log = SharedLog()
        let sync = try engine([RecordingStage("photos", log: log)], clock: clock)
        let monitor = ConnectivityMonitor(probe: { throw Boom() }, overrideStore: InMemoryOverrideStore(), clock: clock)
        let scheduler = SyncScheduler(engine: sync, connectivity: monitor, clock: clock, interval: 300)
        await scheduler.start()
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: 300)
        while log.all.count < 1 { await Task.yield() }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: 300)
        while log.all.count < 2 { await Task.yield() }
        await scheduler.stop()
        #expect(log.all == ["photos", "photos"])
    }
}

@Suite("Connectivity transitions (issue 7 fix)")
struct ConnectivityTransitionTests {
    @Test("leaving airplane mode after a failed probe publishes the transition to online exactly once")
    func singleTransition() async throws {
        let reachable = Mutex(false)
        let monitor = ConnectivityMonitor(
            probe: {
                guard reachable.withLock({ $0 }) else { throw Boom() }
                return ServerHealth(
                    serverTime: Date(timeIntervalSince1970: 0), today: try #require(CalendarDay("2026-07-14")),
                    timeZone: "UTC")
            }, overrideStore: InMemoryOverrideStore(), clock: ManualClock())
        #expect(await monitor.probeNow() == false)
        try await monitor.setForcedOffline(true)
        let stream = await monitor.transitions()
        reachable.withLock { $0 = true }
        try await monitor.setForcedOffline(false)
        await monitor.stop()
        var seen: [Bool] = []
        for await online in stream { seen.append(online) }
        #expect(seen == [true])
    }
}
