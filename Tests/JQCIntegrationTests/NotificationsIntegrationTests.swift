import Foundation
import JQCComposition
import JQCKit
import JQCNotifications
import JQCSync
import Testing

/// alex's notifications in `/__admin/state`, by id.
private func serverNotifications(_ world: TestApp) throws -> [Int64: JSONValue] {
    let all = try world.adminState()["notifications"]?.arrayValue ?? []
    var byID: [Int64: JSONValue] = [:]
    for item in all where item["user_id"]?.intValue == 7 {
        if let id = item["id"]?.intValue { byID[id] = item }
    }
    return byID
}

@Suite("Notifications and dashboard against the dev server")
struct NotificationsIntegrationTests {
    @Test("a pass pulls the seed's notifications newest first, announces the unread ones once, and caches the stats")
    func seedNotificationsPulled() async throws {
        let world = try TestApp()
        let banners = CollectingNotificationSink()
        world.app.notificationSinks.attach(banners)
        try await world.login()
        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stoppedBy == nil)
        #expect(report.stages.map(\.name).suffix(2) == ["notifications", "dashboard"])
        #expect(report.stages.first { $0.name == "notifications" }?.pulled == 3)

        let pulled = try world.app.notifications.notifications()
        #expect(pulled.map(\.id) == [3002, 3001, 3003])
        #expect(pulled.map(\.read) == [false, false, true])
        #expect(try world.app.notifications.unreadCount() == 2)
        #expect(banners.delivered.map(\.title) == ["Issue #49 assigned to you", "Follow-up requested"])
        let server = try serverNotifications(world)
        #expect(try world.app.notifications.cursor() == server[3002]?["created_at"]?.stringValue)

        let stats = try #require(try world.app.dashboard.cached())
        #expect(stats.raw.objectValue.map { Set($0.keys) } == Set(DashboardStats.keys))
    }

    @Test("a notification created on the server arrives with the next pass, announced exactly once")
    func adminNotifyDeliveredOnce() async throws {
        let world = try TestApp()
        let banners = CollectingNotificationSink()
        world.app.notificationSinks.attach(banners)
        try await world.login()
        try await world.app.sync.sync(explicit: true)
        #expect(banners.delivered.count == 2)

        let created = try world.admin(
            "POST", "/__admin/notify",
            [
                "user_id": 7, "title": "Restock soap",
                "body": "Main Courthouse, 2nd floor",
            ])
        try world.admin("POST", "/__admin/notify", ["user_id": 8, "title": "Not for alex"])
        try await world.app.sync.sync(explicit: true)
        try await world.app.sync.sync(explicit: true)
        #expect(banners.delivered.count == 3)
        #expect(banners.delivered.last?.title == "Restock soap")
        #expect(banners.delivered.last?.body == "Main Courthouse, 2nd floor")
        #expect(try world.app.notifications.cursor() == created["data"]?["created_at"]?.stringValue)
        #expect(try world.app.notifications.notifications().first?.title == "Restock soap")
    }

    @Test("mark all read while offline stays queued and reaches the server on the next pass")
    func markReadReachesServer() async throws {
        let world = try TestApp()
        try await world.login()
        try await world.app.sync.sync(explicit: true)

        try await world.app.connectivity.setForcedOffline(true)
        #expect(try world.app.notifications.markAllRead() == [3001, 3002])
        #expect(try world.app.notifications.unreadCount() == 0)
        #expect(try await world.app.notifications.pushQueuedMarkReadNow().queued == [3001, 3002])
        #expect(try serverNotifications(world)[3001]?["read"] == false)

        try await world.app.connectivity.setForcedOffline(false)
        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stages.first { $0.name == "notifications" }?.pushed == 2)
        #expect(try world.app.notifications.queuedMarkRead() == nil)
        let server = try serverNotifications(world)
        #expect([3001, 3002, 3003].map { server[$0]?["read"] } == [true, true, true])
    }

    @Test("the poller pulls a new notification 60 s of the clock after launch, while online and signed in")
    func pollerDeliversOnTheClock() async throws {
        let clock = ManualClock(start: Date())
        let world = try TestApp(clock: clock)
        let banners = CollectingNotificationSink()
        world.app.notificationSinks.attach(banners)
        try await world.login()
        await world.app.launch(background: true)
        // The launch pass pulls the seed's two unread ones; then monitor, scheduler and poller all sleep.
        #expect(await eventually { banners.delivered.count == 2 && clock.sleeperCount == 3 })
        try world.admin("POST", "/__admin/notify", ["user_id": 7, "title": "Ten minutes to inspection"])
        clock.advance(by: 60)
        #expect(await eventually { banners.delivered.count == 3 })
        #expect(banners.delivered.last?.title == "Ten minutes to inspection")
        await world.app.shutdown()
    }

    @Test("a failing dashboard never stops the pass and keeps the stats it had; logout clears everything pulled")
    func dashboardBestEffortAndLogout() async throws {
        let world = try TestApp()
        try await world.login()
        try await world.app.sync.sync(explicit: true)
        let before = try #require(try world.app.dashboard.cached())

        try world.fault(["path_prefix": "/api/v1/dashboard", "mode": "status", "status": 500])
        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stoppedBy == nil)
        #expect(report.stages.last?.name == "dashboard")
        #expect(report.stages.last?.error != nil)
        #expect(try world.app.dashboard.cached() == before)

        await world.app.api.logout()
        try world.app.clearServerPulledData()
        #expect(try world.app.notifications.notifications().isEmpty)
        #expect(try world.app.notifications.cursor() == nil)
        #expect(try world.app.dashboard.cached() == nil)
    }
}

/// Waits (yielding, never sleeping) until `condition` holds; `false` when it never does.
private func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<2_000_000 {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}
