import Foundation
import JQCKit
import JQCSync
import Synchronization
import Testing

@testable import JQCNotifications

private func monitor(_ clock: ManualClock) -> ConnectivityMonitor {
    ConnectivityMonitor(
        probe: {
            ServerHealth(
                serverTime: Date(timeIntervalSince1970: 1_784_000_000),
                today: CalendarDay("2026-07-14")!, timeZone: "UTC")
        },
        overrideStore: InMemoryOverrideStore(), clock: clock)
}

@Suite("Notification poller (seed 001 §8: every 60 s while online)")
struct NotificationPollerTests {
    @Test("it polls once every 60 s of the clock while online, none while offline, and resumes on reconnect")
    func pollsEverySixtySecondsOnlyOnline() async throws {
        let clock = ManualClock()
        let connectivity = monitor(clock)
        let polls = Counter()
        let poller = NotificationPoller(
            connectivity: connectivity, clock: clock, isSignedIn: { true },
            poll: { polls.increment() })
        await poller.start()
        #expect(await poller.isPolling)
        #expect(await eventually { clock.sleeperCount == 1 })
        #expect(polls.count == 0)

        clock.advance(by: 59)
        #expect(polls.count == 0)
        clock.advance(by: 1)
        #expect(await eventually { polls.count == 1 && clock.sleeperCount == 1 })
        clock.advance(by: 60)
        #expect(await eventually { polls.count == 2 && clock.sleeperCount == 1 })

        try await connectivity.setForcedOffline(true)
        #expect(await eventually { await !poller.isPolling && clock.sleeperCount == 0 })
        clock.advance(by: 600)
        for _ in 0..<1_000 { await Task.yield() }
        #expect(polls.count == 2)

        try await connectivity.setForcedOffline(false)
        #expect(await eventually { await poller.isPolling && clock.sleeperCount == 1 })
        clock.advance(by: 60)
        #expect(await eventually { polls.count == 3 })
        await poller.stop()
        #expect(await eventually { clock.sleeperCount == 0 })
    }

    @Test("while signed out a tick sends nothing")
    func signedOutTicksDoNothing() async throws {
        let clock = ManualClock()
        let signedIn = Mutex(false)
        let polls = Counter()
        let poller = NotificationPoller(
            connectivity: monitor(clock), clock: clock,
            isSignedIn: { signedIn.withLock { $0 } }, poll: { polls.increment() })
        await poller.start()
        #expect(await eventually { clock.sleeperCount == 1 })
        clock.advance(by: 60)
        #expect(await eventually { clock.sleeperCount == 1 })
        #expect(polls.count == 0)
        signedIn.withLock { $0 = true }
        clock.advance(by: 60)
        #expect(await eventually { polls.count == 1 })
        await poller.stop()
    }
}
