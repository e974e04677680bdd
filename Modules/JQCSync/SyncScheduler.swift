import Foundation
import JQCKit

/// Automatic passes on the injected clock (never `Timer`, seed 001 rule 27): one every `interval` seconds,
/// and one at each transition to online. Automatic passes respect backoff; failures are kept in the
/// engine's state, never thrown at anyone.
public actor SyncScheduler {
    private let engine: SyncEngine
    private let connectivity: ConnectivityMonitor
    private let clock: any Clock
    private let interval: Double
    private var tasks: [Task<Void, Never>] = []

    /// A scheduler over `engine`.
    /// - Parameters:
    ///   - engine: the engine whose automatic passes this triggers.
    ///   - connectivity: its transitions to online trigger a pass.
    ///   - clock: the clock the periodic passes sleep on.
    ///   - interval: seconds between periodic passes (default 300).
    public init(engine: SyncEngine, connectivity: ConnectivityMonitor, clock: any Clock, interval: Double = 300) {
        self.engine = engine
        self.connectivity = connectivity
        self.clock = clock
        self.interval = interval
    }

    /// Starts the periodic pass and the online-transition trigger.
    public func start() async {
        guard tasks.isEmpty else { return }
        let transitions = await connectivity.transitions()
        let engine = self.engine
        tasks.append(
            Task {
                for await online in transitions where online {
                    _ = try? await engine.sync(explicit: false)
                }
            })
        let clock = self.clock, interval = self.interval
        tasks.append(
            Task {
                while !Task.isCancelled {
                    do { try await clock.sleep(seconds: interval) } catch { return }
                    _ = try? await engine.sync(explicit: false)
                }
            })
    }

    /// Stops both triggers (a pass in flight finishes on its own).
    public func stop() {
        for task in tasks { task.cancel() }
        tasks.removeAll()
    }
}
