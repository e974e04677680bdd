import Foundation
import JQCInspections
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync
import Testing

@testable import JQCIssues

/// The issues push keeps what the server answered ahead of the record, in the record's one transaction: kept
/// when the record fails (issue 17).
@Suite("Issue push: the server id is kept ahead of the record, in its transaction (issue 17)")
struct IssuePushPipelineTests {
    @Test("a photo-less issue whose record fails keeps its server id: the next pass records it, never POSTs again")
    func recordFailureKeepsServerID() async throws {
        let world = try IssueTestWorld()
        let draft = try world.draft()
        let issue = try world.issues.flag(inspectionLocalID: draft.localID, severity: "low", description: "Drip")
        _ = try world.inspections.submit(localID: draft.localID)
        world.transport.route(.post, path: "/api/v1/inspections", [.ok(["id": 900])])
        world.transport.route(.post, path: "/api/v1/issues", [.ok(IssueTestWorld.serverIssue(3001), status: 201)])
        world.transport.route(.get, path: "/api/v1/issues", [.ok([])], repeatLast: true)
        // The store refuses the issue's record (its local photo paths cleared), not its server id.
        try RefusedWritesStore.refuseUpdates(of: "photo_local_paths", on: "issues", in: world.queue)

        let first = try await world.runStages()
        #expect(first["inspections"]?.pushed == 1)
        #expect(first["issues"]?.pushed == 1 && first["issues"]?.deferred == 1)
        let kept = try world.issues.issue(id: issue.localID)
        #expect(kept.serverID == 3001)
        #expect(kept.inspectionServerID == 900)
        #expect(kept.syncStatus == .pending)
        #expect(kept.outbox.attempts == 1)

        try RefusedWritesStore.allowUpdates(of: "photo_local_paths", on: "issues", in: world.queue)
        let second = try await IssuePushStage(service: world.issues).run(world.pass())
        #expect(second.pushed == 1 && second.deferred == 0 && second.failed == 0)
        let posts = world.transport.requests(path: "/api/v1/issues").filter { $0.method == .post }
        #expect(posts.count == 1)
        let synced = try world.issues.issue(id: issue.localID)
        #expect(synced.syncStatus == .synced)
        #expect(synced.serverID == 3001)
        #expect(IssueTestWorld.body(try #require(posts.first))?["inspection_id"] == 900)
    }

    @Test("issues sent one after another are each recorded with their own server id and their parent's")
    func eachRecordedWithItsIDs() async throws {
        let world = try IssueTestWorld()
        var flagged: [(issue: String, inspection: String)] = []
        for index in 0..<3 {
            let draft = try world.draft()
            let issue = try world.issues.flag(
                inspectionLocalID: draft.localID, severity: "low", description: "Drip \(index)")
            _ = try world.inspections.submit(localID: draft.localID)
            flagged.append((issue.localID, draft.localID))
        }
        world.transport.route(
            .post, path: "/api/v1/inspections", [.ok(["id": 900]), .ok(["id": 901]), .ok(["id": 902])])
        world.transport.route(
            .post, path: "/api/v1/issues",
            [
                .ok(IssueTestWorld.serverIssue(3001), status: 201), .ok(IssueTestWorld.serverIssue(3002), status: 201),
                .ok(IssueTestWorld.serverIssue(3003), status: 201),
            ])
        world.transport.route(.get, path: "/api/v1/issues", [.ok([])], repeatLast: true)
        let reports = try await world.runStages()
        #expect(reports["issues"]?.pushed == 3)
        let posts = world.transport.requests(path: "/api/v1/issues").filter { $0.method == .post }
        #expect(posts.compactMap { IssueTestWorld.body($0)?["inspection_id"] } == [900, 901, 902])
        let stored = try flagged.map { try world.issues.issue(id: $0.issue) }
        #expect(stored.map(\.serverID) == [3001, 3002, 3003])
        #expect(stored.map(\.inspectionServerID) == [900, 901, 902])
        #expect(stored.allSatisfy { $0.syncStatus == .synced })
    }
}
