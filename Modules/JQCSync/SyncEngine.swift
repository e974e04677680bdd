import Foundation
import JQCKit

/// What can stop a pass before it starts (seed 001 rule 22, SPEC.md §4).
public struct SyncGuards: Sendable {
    /// Whether requests may leave (connectivity and the manual offline switch).
    public var isOnline: @Sendable () async -> Bool
    /// Whether someone is signed in.
    public var isSignedIn: @Sendable () async -> Bool
    /// Whether this build was refused by the server (426 remembered).
    public var isUpdateRequired: @Sendable () async -> Bool
    /// Whether the inspector switched airplane mode on (`offline`), so the stop sentence can say how to leave it.
    public var isForcedOffline: @Sendable () async -> Bool

    /// Whom the pass pushes for (the signed-in user and the server; [authorship], issue 20), or `nil` to
    /// admit every item (a tool or test that drives one feed). Read after the other guards pass.
    public var identity: @Sendable () async -> OutboxIdentity?

    /// Guards from closures.
    public init(
        isOnline: @escaping @Sendable () async -> Bool, isSignedIn: @escaping @Sendable () async -> Bool,
        isUpdateRequired: @escaping @Sendable () async -> Bool = { false },
        identity: @escaping @Sendable () async -> OutboxIdentity? = { nil },
        isForcedOffline: @escaping @Sendable () async -> Bool = { false }
    ) {
        self.isOnline = isOnline
        self.isSignedIn = isSignedIn
        self.isUpdateRequired = isUpdateRequired
        self.identity = identity
        self.isForcedOffline = isForcedOffline
    }
}

/// The report of one pass.
public struct SyncPassReport: Sendable, Equatable {
    /// Each stage that ran, in order.
    public var stages: [StageReport]
    /// When the pass started.
    public var startedAt: Date
    /// Why the pass stopped early, or `nil` when every stage ran.
    public var stoppedBy: SyncStopError?
    /// Whether the pass was explicit (Sync Now, the shell's `sync`) rather than automatic (timer, trigger).
    public var isExplicit = false
}

/// The engine's observable state, published as a stream of snapshots.
public struct SyncSnapshot: Sendable, Equatable {
    /// The stage running now, or `nil` between passes.
    public var runningStage: String?
    /// When the last pass completed (every stage ran), or `nil`.
    public var lastSyncAt: Date?
    /// The last pass's error as a sentence, or `nil`: kept until the next pass ends, which clears it when it
    /// completes (or sets its own, issue 18).
    public var lastError: String?
    /// The last completed pass's report, or `nil`.
    public var lastReport: SyncPassReport?
    /// Whether an explicit pass is waiting for a pass another process is running over the same data
    /// directory (issue 15; the shell prints a line saying so).
    public var waitingForPassElsewhere = false
}

/// Runs the registered stages in their order (SPEC.md §2, §4): single-flight (a trigger during a pass is
/// coalesced into one more pass), guarded (online, signed in, not refused), with best-effort stages that
/// never block the pipeline. Built by the composition root; no singletons.
public actor SyncEngine {
    private let stages: [any SyncStage]
    private let guards: SyncGuards
    private let clock: any Clock
    private let policy: OutboxPolicy
    private let classify: SyncFailureClassifier
    private let logger: Logger
    private let jitter: @Sendable () -> Double
    private let passLock: (any SyncPassLock)?
    /// Where passes run (issue 17): a thread of their own, so the transport performs each request on it
    /// (``/JQCKit/BlockingTaskExecutor/mayBlock``) instead of hopping to its queue and back.
    private let passExecutor = BlockingTaskExecutor(label: "jqc.sync.pass")

    private var running: Task<SyncPassReport, any Error>?
    private var runningID: UInt64 = 0
    /// Whether ``running`` was asked for explicitly (Sync Now) rather than by a trigger.
    private var runningIsExplicit = false
    private var queuedAutomatic: Task<SyncPassReport, any Error>?
    private var queuedAutomaticID: UInt64?
    private var nextID: UInt64 = 0
    private var snapshot = SyncSnapshot()
    private var continuations: [UUID: AsyncStream<SyncSnapshot>.Continuation] = [:]

    /// An engine running `stages` in the order given: sort them with ``StageOrder/sorted(_:)`` (the
    /// composition root does) so the features' declared constraints hold.
    /// - Parameters:
    ///   - stages: the stages of a pass, in the order they run.
    ///   - guards: what stops a pass before any stage runs (offline, signed out, update required).
    ///   - clock: the clock of the passes (timestamps, backoff).
    ///   - policy: the outbox rules the stages apply.
    ///   - classify: maps any error onto a ``SyncFailure``.
    ///   - logger: the engine's log.
    ///   - jitter: the backoff's random factor (0.5…1.5 by default; tests fix it).
    ///   - passLock: the cross-process pass lock (issue 15); `nil` serialises passes in this process only.
    public init(
        stages: [any SyncStage], guards: SyncGuards, clock: any Clock, policy: OutboxPolicy = OutboxPolicy(),
        classify: @escaping SyncFailureClassifier, logger: Logger = .disabled,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.5...1.5) },
        passLock: (any SyncPassLock)? = nil
    ) {
        self.stages = stages
        self.guards = guards
        self.clock = clock
        self.policy = policy
        self.classify = classify
        self.logger = logger
        self.jitter = jitter
        self.passLock = passLock
    }

    /// The registered stages' names, in run order.
    public var stageNames: [String] { stages.map(\.name) }

    /// The current state.
    public var current: SyncSnapshot { snapshot }

    /// A stream of state changes, starting with the current state.
    public func snapshots() -> AsyncStream<SyncSnapshot> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<SyncSnapshot>.makeStream(bufferingPolicy: .bufferingNewest(16))
        continuation.yield(snapshot)
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeContinuation(id) }
        }
        return stream
    }

    private func removeContinuation(_ id: UUID) { continuations[id] = nil }

    private func publish() {
        for continuation in continuations.values { continuation.yield(snapshot) }
    }

    /// Runs a pass now. An explicit pass (Sync Now) tries every pending item; an automatic one respects
    /// backoff. If a pass is running, an automatic trigger is coalesced into one more pass after it, and an
    /// explicit one waits for it and then runs. Cancelling an explicit pass that waits behind an automatic one
    /// cancels that one too (Ctrl-C on `sync` while a trigger's pass sends: both stop within about a second,
    /// everything unsent stays queued), so the caller is never held by a request it did not ask for.
    /// - Returns: the report (item failures are data, not errors).
    /// - Throws: ``SyncStopError`` when the pass could not run or was stopped (offline, signed out,
    ///   update required).
    @discardableResult
    public func sync(explicit: Bool) async throws -> SyncPassReport {
        if !explicit, let queuedAutomatic { return try await queuedAutomatic.value }
        nextID += 1
        let id = nextID
        let previous = running
        // Ctrl-C on an explicit pass queued behind an automatic one stops that one too (see above).
        let alsoCancel = explicit && previous != nil && !runningIsExplicit ? previous : nil
        // Each pass waits for the one before it, so passes never overlap.
        let task = Task(executorPreference: passExecutor) { () async throws -> SyncPassReport in
            _ = try? await previous?.value
            await self.passStarting(id)
            return try await self.lockedPass(explicit: explicit)
        }
        running = task
        runningID = id
        runningIsExplicit = explicit
        if !explicit && previous != nil {
            queuedAutomatic = task
            queuedAutomaticID = id
        }
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
            alsoCancel?.cancel()
        }
        if runningID == id { running = nil }
        return try result.get()
    }

    /// A queued automatic pass has started: later triggers queue a new one.
    private func passStarting(_ id: UInt64) {
        if queuedAutomaticID == id {
            queuedAutomatic = nil
            queuedAutomaticID = nil
        }
    }

    /// Runs `pass` holding the cross-process pass lock (issue 15): an automatic pass is skipped when another
    /// process holds it (``SyncStopError/Kind/passRunningElsewhere``); an explicit one waits, published as
    /// ``SyncSnapshot/waitingForPassElsewhere``. A pass its guards stop takes no lock (it sends nothing).
    private func lockedPass(explicit: Bool) async throws -> SyncPassReport {
        guard let passLock, (try? await checkGuards()) != nil else { return try await pass(explicit: explicit) }
        var hold: (any SyncPassLockHold)?
        do {
            hold = try passLock.tryAcquire()
            if hold == nil && !explicit {
                throw SyncStopError(
                    .passRunningElsewhere,
                    "Another jqc process is syncing this data directory; this automatic pass was skipped.")
            }
            if hold == nil {
                snapshot.waitingForPassElsewhere = true
                publish()
                defer {
                    snapshot.waitingForPassElsewhere = false
                    publish()
                }
                hold = try await passLock.acquire()
            }
        } catch let stop as SyncStopError {
            throw stop
        } catch is CancellationError {
            throw SyncStopError(.cancelled, "Sync was cancelled; everything stays queued.")
        } catch {
            throw SyncStopError(.storeUnavailable, "Sync could not start: \(error)", cause: error)
        }
        defer { hold?.release() }
        return try await pass(explicit: explicit)
    }

    private func pass(explicit: Bool) async throws -> SyncPassReport {
        // The last error survives until this pass ends (issue 18): a completed pass clears it (or replaces it
        // with a best-effort stage's failure), a stopped one replaces it with why it stopped.
        let started = clock.now
        do {
            try await checkGuards()
        } catch let stop as SyncStopError {
            snapshot.lastError = stop.message
            publish()
            throw stop
        }
        let context = SyncPass(
            isExplicit: explicit, clock: clock, policy: policy, classify: classify,
            logger: logger, jitter: jitter, identity: await guards.identity())
        var reports: [StageReport] = []
        var stop: SyncStopError?
        for stage in stages {
            if Task.isCancelled {
                stop = SyncStopError(.cancelled, "Sync was cancelled; everything stays queued.")
                break
            }
            snapshot.runningStage = stage.name
            publish()
            let stageStart = clock.now
            var report: StageReport
            do {
                report = try await stage.run(context)
            } catch let error as SyncStopError {
                stop = error
                reports.append(
                    StageReport(
                        name: stage.name, seconds: clock.now.timeIntervalSince(stageStart), error: error.message))
                break
            } catch {
                let message = SyncEngine.sentence(for: error, classify: classify)
                logger.warning("stage \(stage.name) failed: \(message)")
                reports.append(
                    StageReport(name: stage.name, seconds: clock.now.timeIntervalSince(stageStart), error: message))
                if case .stopPass(let stopError) = context.disposition(for: error, attempts: 0) {
                    stop = stopError
                    break
                }
                // Pulls stand alone (issue 21): a failed pull is reported and the next stage still runs; a push that
                // failed stops the pass, so later pushes keep their order (photos → inspections → issues).
                if stage.isBestEffort || stage.direction == .pull { continue }
                stop = SyncStopError(.stageFailed, "Sync stopped at \(stage.name): \(message)")
                break
            }
            report.name = stage.name
            report.seconds = clock.now.timeIntervalSince(stageStart)
            reports.append(report)
        }
        snapshot.runningStage = nil
        var result = SyncPassReport(stages: reports, startedAt: started, stoppedBy: stop)
        result.isExplicit = explicit
        snapshot.lastReport = result
        if let stop {
            snapshot.lastError = stop.message
            publish()
            if stop.kind != .stageFailed { throw stop }
            return result
        }
        snapshot.lastSyncAt = clock.now
        snapshot.lastError = reports.first { $0.error != nil }.map { "\($0.name): \($0.error ?? "")" }
        publish()
        return result
    }

    private func checkGuards() async throws {
        if await guards.isUpdateRequired() {
            throw SyncStopError(
                .updateRequired,
                "Update required: the server no longer accepts this version of jqc. Everything stays queued.")
        }
        guard await guards.isOnline() else {
            if await guards.isForcedOffline() {
                throw SyncStopError(
                    .offline, "You are offline (airplane mode): type 'online' to reconnect. Everything stays queued.")
            }
            throw SyncStopError(
                .offline, "You are offline; everything stays queued and will sync when you are back online.")
        }
        guard await guards.isSignedIn() else {
            throw SyncStopError(.signedOut, "You are not signed in; log in to sync. Nothing was lost.")
        }
    }

    /// A person-readable sentence for a stage failure.
    static func sentence(for error: any Error, classify: SyncFailureClassifier) -> String {
        switch classify(error) {
        case .offline: "The server cannot be reached."
        case .unreachable(let message): message
        case .timeout: "The server did not answer in time."
        case .server(let message), .rejected(let message), .local(let message): message
        case .rateLimited: "The server is busy (too many requests)."
        case .signedOut: "You are signed out."
        case .updateRequired: "Update required."
        case .cancelled: "Cancelled."
        }
    }
}
