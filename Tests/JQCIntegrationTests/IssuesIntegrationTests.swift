import Foundation
import JQCComposition
import JQCInspections
import JQCIssues
import JQCJPEG
import JQCKit
import JQCNetwork
import JQCSync
import Testing

@Suite("Issues and inspection photos against the dev server (issue 8)")
struct IssuesIntegrationTests {
    @Test("an issue with three photos taken offline lands, once online, with photo_path and two mobile_photo_paths")
    func offlineIssueWithThreePhotos() async throws {
        let world = try TestApp()
        try await world.ready()
        try await world.app.connectivity.setForcedOffline(true)
        let files = try (1...3).map { try jpeg(in: world.clientDirectory.url, "p\($0).jpg", seed: $0) }
        let issue = try world.app.issues.createStandalone(
            facilityID: 21, areaID: 212, severity: "medium", description: "Dryer not working", photoFiles: files)
        let queued = try world.app.outboxStatus().pending
        #expect(queued["photos"] == 3 && queued["issues"] == 1)
        #expect(queued.filter { !["photos", "issues"].contains($0.key) }.values.allSatisfy { $0 == 0 })
        await #expect(throws: SyncStopError.self) { try await world.app.sync.sync(explicit: true) }
        #expect(
            try world.adminState()["issues"]?.arrayValue?.contains { $0["local_id"] == .string(issue.localID) }
                == false)

        try await world.app.connectivity.setForcedOffline(false)
        _ = await world.app.connectivity.probeNow()
        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stoppedBy == nil)
        #expect(try world.app.outboxStatus().pending.values.allSatisfy { $0 == 0 })
        let state = try world.adminState()
        let server = try #require(state["issues"]?.arrayValue?.filter { $0["local_id"] == .string(issue.localID) })
        #expect(server.count == 1)
        let photoPath = try #require(server[0]["photo_path"]?.stringValue)
        let mobile = server[0]["mobile_photo_paths"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(mobile.count == 2)
        #expect(Set([photoPath] + mobile).count == 3)
        #expect(server[0]["area_id"] == 212)
        #expect(server[0]["inspection_id"] == .null)
        let stored = Set(state["photos"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        #expect(([photoPath] + mobile).allSatisfy { stored.contains($0) && $0.hasPrefix("uploads/issue_photos/") })
        let local = try world.app.issues.issue(id: issue.localID)
        #expect(local.syncStatus == .synced)
        #expect(local.photoLocalPaths == [])  // rule 43
        #expect(local.photoServerPaths == [photoPath] + mobile)
    }

    @Test("an empty assigned-issues reply removes the stale server-pulled issues and nothing else")
    func emptyReplyRemovesStale() async throws {
        let world = try TestApp()
        try await world.ready()
        let pulled = try world.app.issues.list(includeResolved: true)
        #expect(Set(pulled.compactMap(\.serverID)) == [48, 49, 50])
        // Unsynced work: an issue flagged on a draft (waits for its inspection, rule 11).
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 21))
        let flagged = try world.app.issues.flag(inspectionLocalID: draft.localID, severity: "low", description: "Scuff")
        // Another inspector signs in on this device without the cleanup a logout does: sam has no issues.
        try await world.login("sam")
        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stages.first { $0.name == "assigned issues" }?.pulled == 0)
        let left = try world.app.issues.list(includeResolved: true)
        #expect(left.map(\.localID) == [flagged.localID])
        #expect(left[0].syncStatus == .pending)
        #expect(left[0].areaID == nil)
    }

    @Test("an inspection with a photo lands after its photo, with the server path in form_data and never local://")
    func inspectionPhotoLands() async throws {
        let world = try TestApp()
        try await world.ready()
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111))
        try world.app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        let photo = try world.app.inspectionPhotos.attach(
            localID: draft.localID, fieldID: "9", file: try jpeg(in: world.clientDirectory.url, "c.jpg", seed: 9))
        let signature = try world.app.inspectionPhotos.attach(
            localID: draft.localID, fieldID: "12", file: try jpeg(in: world.clientDirectory.url, "s.jpg", seed: 12))
        #expect(try world.local(draft.localID).formData["9"] == .string(photo.sentinel))
        _ = try world.app.inspections.submit(localID: draft.localID)
        // The photos fail once (a 5xx): the inspection waits for them (rule 12) and is not sent in this pass.
        try world.fault(["path_prefix": "/api/v1/photos/upload", "mode": "status", "status": 503, "count": 2])
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.serverRecords(draft.localID).isEmpty)
        #expect(try world.local(draft.localID).syncStatus == .pending)
        _ = try await world.app.sync.sync(explicit: true)
        let records = try world.serverRecords(draft.localID)
        #expect(records.count == 1)
        let formData = try #require(records.first?["form_data"]?.objectValue)
        let path = try #require(formData["9"]?.stringValue)
        #expect(path.hasPrefix("uploads/inspection_photos/"))
        #expect(formData["12"]?.stringValue?.hasPrefix("uploads/inspection_photos/") == true)
        #expect(!formData.values.contains { $0.stringValue?.hasPrefix("local://") == true })
        let stored = Set(try world.adminState()["photos"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        #expect(stored.contains(path))
        let local = try world.local(draft.localID)
        #expect(local.syncStatus == .synced)
        #expect(local.formData["9"] == .string(path))
        #expect(try world.app.photos.photo(id: signature.id)?.state == .settled)
    }

    @Test("an issue POST applied but its reply lost (drop_after) lands exactly once")
    func dropAfterLandsOnce() async throws {
        let world = try TestApp()
        try await world.ready()
        let issue = try world.app.issues.createStandalone(facilityID: 11, severity: "high", description: "Broken lock")
        try world.fault(["method": "POST", "path_prefix": "/api/v1/issues", "mode": "drop_after"])
        _ = try await world.app.sync.sync(explicit: true)
        _ = try await world.app.sync.sync(explicit: true)
        let records = (try world.adminState()["issues"]?.arrayValue ?? []).filter {
            $0["local_id"] == .string(issue.localID)
        }
        #expect(records.count == 1)
        let local = try world.app.issues.issue(id: issue.localID)
        #expect(local.syncStatus == .synced)
        #expect(local.serverID == records.first?["id"]?.intValue.map { Int($0) })
        #expect(try world.app.issues.list().filter { $0.description == "Broken lock" }.count == 1)
    }
}
