import Foundation
import JQCKit
import JQCSync

/// Polls for notifications every 60 s on the injected clock while online and signed in (seed 001 §8
/// "Notification polling": a sleeping task loop, never `Timer`, rule 27; SPEC.md §3).
///
/// Driven by the ``/JQCSync/ConnectivityMonitor``'s transitions: the loop runs while online and is stopped while
/// offline (no wake-ups, no requests); it restarts with a fresh 60 s cadence on reconnect (the reconnect
/// pass itself pulls notifications). While signed out each tick does nothing. On logout the composition
/// root's `clearServerPulledData` clears the cursor and the cached notifications (the seed's
/// `resetNotificationPoller()`), and a poll in flight writes nothing.
public actor NotificationPoller {
    /// The seed's interval: 60 seconds.
    public static let defaultInterval: Double = 60

    /// One poll (push the queued mark-read, pull what is new); errors are the callee's to log.
    public typealias Poll = @Sendable () async -> Void

    private let connectivity: ConnectivityMonitor
    private let clock: any Clock
    private let interval: Double
    private let isSignedIn: @Sendable () async -> Bool
    private let poll: Poll
    private var watcher: Task<Void, Never>?
    private var loop: Task<Void, Never>?

    /// A poller; nothing runs until ``start()``.
    /// - Parameters:
    ///   - connectivity: whether requests may leave, and its transitions.
    ///   - clock: the clock the loop sleeps on (a `ManualClock` in tests).
    ///   - interval: seconds between polls (default 60).
    ///   - isSignedIn: whether someone is signed in now.
    ///   - poll: the work of one tick.
    public init(
        connectivity: ConnectivityMonitor, clock: any Clock,
        interval: Double = NotificationPoller.defaultInterval,
        isSignedIn: @escaping @Sendable () async -> Bool, poll: @escaping Poll
    ) {
        self.connectivity = connectivity
        self.clock = clock
        self.interval = interval
        self.isSignedIn = isSignedIn
        self.poll = poll
    }

    /// Whether the 60 s loop is running (online), as opposed to stopped (offline or not started).
    public var isPolling: Bool { loop != nil }

    /// Starts following connectivity: the loop runs now when online, and starts and stops with each
    /// transition. Calling it again does nothing.
    public func start() async {
        guard watcher == nil else { return }
        let transitions = await connectivity.transitions()
        watcher = Task { [weak self] in
            for await online in transitions {
                await self?.connectivityChanged(online: online)
            }
        }
        if await connectivity.isOnline { startLoop() }
    }

    /// Stops the loop and stops following connectivity (shutdown).
    public func stop() {
        watcher?.cancel()
        watcher = nil
        stopLoop()
    }

    private func connectivityChanged(online: Bool) {
        guard watcher != nil else { return }
        if online { startLoop() } else { stopLoop() }
    }

    private func startLoop() {
        guard loop == nil else { return }
        let clock = self.clock, interval = self.interval, connectivity = self.connectivity
        let isSignedIn = self.isSignedIn, poll = self.poll
        loop = Task {
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { return }
                guard !Task.isCancelled, await connectivity.isOnline, await isSignedIn() else { continue }
                await poll()
            }
        }
    }

    private func stopLoop() {
        loop?.cancel()
        loop = nil
    }
}
