import Foundation
import JQCComposition
import JQCInspections
import JQCIssues
import JQCKit
import Testing

/// Issue 18: the facility prune and rule 42's clearing, through the real composition root (the features'
/// contributions as installed, not only their stores).
@Suite("The facility prune and rule 42 through the composition root")
struct PruneAndClearIntegrationTests {
    @Test("a facility only an unsynced issue or a completed unsynced inspection references is kept, inactive")
    func pruneKeepsReferencedFacilities() async throws {
        let world = try TestApp()
        try await world.ready()  // alex: projects 1 and 2, active facilities 11, 12, 21, 22
        let issue = try world.app.issues.createStandalone(facilityID: 11, severity: "low", description: "Scuff")
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 12))
        try world.app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        _ = try world.app.inspections.submit(localID: draft.localID)
        // Both stay unsynced: alex's issue and inspection wait for alex while sam is signed in (issue 20), and
        // were they sent, the issue would be refused (422) and the inspection get a 503.
        try world.fault(["mode": "status", "status": 422, "method": "POST", "path_prefix": "/api/v1/issues"])
        try world.fault(["mode": "status", "status": 503, "method": "POST", "path_prefix": "/api/v1/inspections"])
        // sam (project 2 only) signs in without a logout's cleanup: facilities 11 and 12 leave the reply.
        try await world.login("sam")
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.app.issues.issue(id: issue.localID).syncStatus == .pending)
        #expect(try world.app.inspections.inspection(localID: draft.localID).syncStatus == .pending)
        let all = try world.app.reference.store.facilities(activeOnly: false)
        #expect(all.filter { [11, 12].contains($0.id) }.map(\.isActive) == [false, false])
        #expect(Set(all.filter(\.isActive).map(\.id)) == [21, 22])
    }

    @Test("rule 42: clearing server-pulled data removes the issues with a server id and keeps the one without")
    func clearingRemovesServerIssues() async throws {
        let world = try TestApp()
        try await world.ready()
        #expect(Set(try world.app.issues.list(includeResolved: true).compactMap(\.serverID)) == [48, 49, 50])
        try await world.app.connectivity.setForcedOffline(true)
        let local = try world.app.issues.createStandalone(facilityID: 21, severity: "low", description: "Local")
        try world.app.clearServerPulledData()  // what logout and a server switch run
        let left = try world.app.issues.list(includeResolved: true)
        #expect(left.map(\.localID) == [local.localID])
        #expect(left.first?.serverID == nil)
    }
}
