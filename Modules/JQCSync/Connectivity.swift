import Foundation
import JQCKit
import Synchronization

/// What the server's `/api/v1/health` said (CONTRACT.md): the probe result and the source of "today".
public struct ServerHealth: Sendable, Equatable {
    /// The server's clock at the reply.
    public var serverTime: Date
    /// The server's calendar day in its time zone (the client never computes "today" itself; seed 003).
    public var today: CalendarDay
    /// The server's time zone identifier.
    public var timeZone: String

    /// A health reply.
    public init(serverTime: Date, today: CalendarDay, timeZone: String) {
        self.serverTime = serverTime
        self.today = today
        self.timeZone = timeZone
    }
}

/// Where the manual connectivity switch is kept (the shell: `<data-dir>/connectivity`), so airplane mode
/// survives a restart.
public protocol ConnectivityOverrideStore: Sendable {
    /// `true` when the inspector switched to offline.
    func loadForcedOffline() -> Bool
    /// Stores the switch.
    /// - Throws: the store's error.
    func saveForcedOffline(_ offline: Bool) throws
}

/// An in-memory switch (tests).
public final class InMemoryOverrideStore: ConnectivityOverrideStore {
    private let value: Mutex<Bool>
    /// A switch starting at `forcedOffline`.
    public init(forcedOffline: Bool = false) { value = Mutex(forcedOffline) }
    public func loadForcedOffline() -> Bool { value.withLock { $0 } }
    public func saveForcedOffline(_ offline: Bool) throws { value.withLock { $0 = offline } }
}

/// Whether requests may leave, learned by probing the server's health with backoff, plus the manual
/// offline switch (`offline` = airplane mode: no request leaves). Transitions are published; a transition
/// to online triggers a sync pass (the scheduler listens). Replaces iOS's `NWPathMonitor` (SPEC.md §3).
public actor ConnectivityMonitor {
    /// The probe: `GET /api/v1/health` through the API client.
    public typealias Probe = @Sendable () async throws -> ServerHealth

    private let probe: Probe
    private let overrideStore: any ConnectivityOverrideStore
    private let clock: any Clock
    private let onlineInterval: Double
    private let minimumBackoff: Double
    private let maximumBackoff: Double
    private var reachable: Bool?
    private var health: ServerHealth?
    private var healthReceivedAt: Date?
    private var monitoring: Task<Void, Never>?
    private var continuations: [UUID: AsyncStream<Bool>.Continuation] = [:]

    /// A monitor over `probe`.
    /// - Parameters:
    ///   - probe: asks the server's health (`GET /api/v1/health`); throwing means unreachable.
    ///   - overrideStore: where the manual offline switch is kept.
    ///   - clock: the clock the probes sleep on.
    ///   - onlineInterval: seconds between probes while reachable (default 60).
    ///   - minimumBackoff: first retry delay after a failed probe, seconds (default 5), doubling up to
    ///     `maximumBackoff`.
    ///   - maximumBackoff: the longest retry delay, seconds (default 300).
    public init(
        probe: @escaping Probe, overrideStore: any ConnectivityOverrideStore, clock: any Clock,
        onlineInterval: Double = 60, minimumBackoff: Double = 5, maximumBackoff: Double = 300
    ) {
        self.probe = probe
        self.overrideStore = overrideStore
        self.clock = clock
        self.onlineInterval = onlineInterval
        self.minimumBackoff = minimumBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// Whether the manual offline switch is on.
    public var isForcedOffline: Bool { overrideStore.loadForcedOffline() }

    /// Whether requests may leave now: not forced offline, and the last probe reached the server (an
    /// unprobed server counts as reachable until a probe says otherwise).
    public var isOnline: Bool { !isForcedOffline && (reachable ?? true) }

    /// The last health reply, or `nil` when none arrived yet.
    public var lastHealth: ServerHealth? { health }

    /// The server's today, from the last health reply (seed 003: never the device's own).
    public var serverToday: CalendarDay? { health?.today }

    /// Seconds to add to this device's clock to get the server's (from the last health reply), or `nil`.
    public var clockOffset: Double? {
        guard let health, let healthReceivedAt else { return nil }
        return health.serverTime.timeIntervalSince(healthReceivedAt)
    }

    /// Turns the manual switch on or off; switching online probes at once and publishes the transition.
    /// - Throws: the override store's error.
    public func setForcedOffline(_ offline: Bool) async throws {
        let wasOnline = isOnline
        try overrideStore.saveForcedOffline(offline)
        if !offline { await runProbe() }  // publishes once, below (probeNow would publish a second time)
        if wasOnline != isOnline { publish(isOnline) }
    }

    /// Probes once (unless forced offline) and publishes a transition.
    /// - Returns: whether requests may leave now.
    @discardableResult
    public func probeNow() async -> Bool {
        guard !isForcedOffline else { return false }
        let wasOnline = isOnline
        await runProbe()
        if wasOnline != isOnline {
            publish(isOnline)
        }
        return isOnline
    }

    /// Probes once and records the result, without publishing.
    private func runProbe() async {
        do {
            let reply = try await probe()
            health = reply
            healthReceivedAt = clock.now
            reachable = true
        } catch {
            reachable = false
        }
    }

    /// A stream of transitions (`true` = became online).
    public func transitions() -> AsyncStream<Bool> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(4))
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.remove(id) } }
        return stream
    }

    private func remove(_ id: UUID) { continuations[id] = nil }

    private func publish(_ online: Bool) {
        for continuation in continuations.values { continuation.yield(online) }
    }

    /// Starts probing in the background: every `onlineInterval` while reachable, with doubling backoff
    /// while not (seed 001 rule 21: call after the session is restored).
    public func start() {
        guard monitoring == nil else { return }
        monitoring = Task { [clock, onlineInterval, minimumBackoff, maximumBackoff] in
            var backoff = minimumBackoff
            while !Task.isCancelled {
                let online = await self.probeNow()
                let forced = self.isForcedOffline
                let wait: Double
                if online || forced {
                    backoff = minimumBackoff
                    wait = onlineInterval
                } else {
                    wait = backoff
                    backoff = min(maximumBackoff, backoff * 2)
                }
                do { try await clock.sleep(seconds: wait) } catch { return }
            }
        }
    }

    /// Stops background probing.
    public func stop() {
        monitoring?.cancel()
        monitoring = nil
        for continuation in continuations.values { continuation.finish() }
        continuations.removeAll()
    }
}
