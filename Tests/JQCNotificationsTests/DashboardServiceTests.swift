import Foundation
import JQCKit
import JQCNetwork
import JQCSync
import Testing

@testable import JQCNotifications

private let stats: JSONValue = [
    "inspections_this_week": 3, "average_score": 91.5, "open_issues": 4,
    "overdue_schedules": 1, "pending_follow_ups": 2,
]

@Suite("Dashboard stats (seed 001 rule 49)")
struct DashboardServiceTests {
    @Test("a failed refresh keeps the previous stats, and the stage reports it without stopping the pass")
    func failureKeepsOldValue() async throws {
        let feature = try Feature()
        feature.transport.route(
            .get, path: DashboardService.statsPath,
            [.ok(stats), .error(500, "Database unavailable."), .fail(.offline("down"))])
        let fetched = try await feature.dashboard.refresh()
        #expect(fetched.openIssues == 4)
        #expect(fetched.averageScore == 91.5)
        let fetchedAt = feature.clock.now
        feature.clock.advance(by: 600)

        let stage = DashboardStage(service: feature.dashboard)
        let report = try await stage.run(feature.pass())
        #expect(report.pulled == 0)
        #expect(report.error == "The server had a problem (HTTP 500): Database unavailable.")
        #expect(try feature.dashboard.cached() == DashboardStats(raw: stats, fetchedAt: fetchedAt))

        let offline = try await stage.run(feature.pass())  // even offline: reported, never thrown
        #expect(offline.error?.hasPrefix("The server could not be reached.") == true)
        #expect(try feature.dashboard.cached()?.fetchedAt == fetchedAt)
    }

    @Test("the dashboard surface shows cached stats as stale after a failed refresh, and failed with nothing cached")
    func loadPhases() async throws {
        let feature = try Feature()
        feature.transport.route(
            .get, path: DashboardService.statsPath,
            [.error(502, "Bad gateway."), .ok(stats), .error(502, "Bad gateway.")])
        let nothing = await feature.dashboard.load()
        #expect(nothing.value == nil)
        #expect(nothing.phase == .failed)
        #expect(nothing.staleReason == "The server had a problem (HTTP 502): Bad gateway.")

        let fresh = await feature.dashboard.load()
        #expect(fresh.phase == .content)
        #expect(fresh.isStale == false)
        #expect(fresh.value?.inspectionsThisWeek == 3)

        let stale = await feature.dashboard.load()
        #expect(stale.phase == .content)
        #expect(stale.isStale)
        #expect(stale.value?.raw == stats)
    }

    @Test("logout clears the cached stats")
    func logoutClears() async throws {
        let feature = try Feature()
        feature.transport.route(.get, path: DashboardService.statsPath, [.ok(stats)])
        try await feature.dashboard.refresh()
        try feature.dashboard.clearServerPulledData()
        #expect(try feature.dashboard.cached() == nil)
    }
}

@Suite("Dashboard stats with wrong types (issue 21)")
struct DashboardWrongTypeTests {
    @Test("a tile of the wrong type is refused with its path and the cached stats stay as they were")
    func wrongTypedTileRefused() async throws {
        let feature = try Feature()
        var hostile = stats
        if case .object(var members) = hostile {
            members["average_score"] = "not-a-number"
            hostile = .object(members)
        }
        var fraction = stats
        if case .object(var members) = fraction {
            members["open_issues"] = 2.5
            fraction = .object(members)
        }
        feature.transport.route(.get, path: DashboardService.statsPath, [.ok(stats), .ok(hostile), .ok(fraction)])
        let fetched = try await feature.dashboard.refresh()
        feature.clock.advance(by: 60)
        let error = await #expect(throws: APIError.self) { try await feature.dashboard.refresh() }
        #expect(error == .undecodable("data.average_score: expected a number, got a string"))
        let second = await #expect(throws: APIError.self) { try await feature.dashboard.refresh() }
        #expect(second == .undecodable("data.open_issues: expected an integer, got 2.5"))
        #expect(try feature.dashboard.cached() == fetched)
        #expect(try feature.dashboard.cached()?.averageScore == 91.5)
    }
}
