import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCTestSupport
import Testing

@testable import JQCIssues

/// Issue 18: the list's order, and the deletion pass leaving a standalone issue the server has but this
/// device has not yet marked synced.
@Suite("Issue list order and the deletion pass")
struct IssueOrderAndPullTests {
    @Test("issues are newest first by the server's created_at (local creation time for a local one), not insert order")
    func newestFirst() async throws {
        let world = try IssueTestWorld()
        // The clock stands at 2026-07-14T03:33Z: the local issue sits between the server's 07-15 and 07-12.
        let local = try world.issues.createStandalone(facilityID: 21, severity: "low", description: "local")
        world.transport.route(
            .get, path: "/api/v1/issues",
            [
                .ok([
                    IssueTestWorld.serverIssue(50, createdAt: "2026-07-15T08:00:00Z"),
                    IssueTestWorld.serverIssue(49, createdAt: "2026-07-12T09:00:00-04:00"),
                    IssueTestWorld.serverIssue(48, createdAt: "2026-07-10T09:00:00.250Z"),
                ])
            ])
        try await world.issues.pullAssigned(now: world.clock.now)
        let listed = try world.issues.list(includeResolved: true)
        #expect(listed.map(\.displayID) == ["50", local.localID, "49", "48"])
    }

    @Test("a standalone issue whose POST landed but is not yet marked synced survives the deletion pass")
    func landedNotMarkedSurvives() async throws {
        let world = try IssueTestWorld()
        let standalone = try world.issues.createStandalone(facilityID: 21, severity: "high", description: "leak")
        // The POST landed (server id stored) but the pass ended before the issue was marked synced.
        try world.store.markCreated(
            localID: standalone.localID, serverID: 900, inspectionServerID: nil, at: world.clock.now)
        world.transport.route(.get, path: "/api/v1/issues", [.ok([IssueTestWorld.serverIssue(48)])])
        let result = try await world.issues.pullAssigned(now: world.clock.now)
        #expect(result.deleted.isEmpty)
        let kept = try world.issues.issue(id: standalone.localID)
        #expect(kept.serverID == 900)
        #expect(kept.syncStatus == .pending)
        #expect(kept.description == "leak")
    }
}
