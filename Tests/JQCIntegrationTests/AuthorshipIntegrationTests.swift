import Foundation
import JQCComposition
import JQCDevServer
import JQCInspections
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

extension TestApp {
    /// Offline: a submitted Restroom QC inspection with a photo in field 9, and an issue flagged on it.
    /// - Returns: the inspection's and the issue's local ids.
    func queueInspectionWithPhotoAndIssue() async throws -> (inspection: String, issue: String) {
        try await app.connectivity.setForcedOffline(true)
        let draft = try app.inspections.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111))
        try app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        _ = try app.inspectionPhotos.attach(
            localID: draft.localID, fieldID: "9", file: try jpeg(in: clientDirectory.url, "a.jpg", seed: 3))
        _ = try app.inspections.submit(localID: draft.localID)
        let issue = try app.issues.flag(inspectionLocalID: draft.localID, severity: "high", description: "Leak")
        return (draft.localID, issue.localID)
    }

    /// Back online (the switch off and a probe).
    func goOnline() async throws {
        try await app.connectivity.setForcedOffline(false)
        _ = await app.connectivity.probeNow()
    }

    /// The shell's `logout`: the server told, credentials cleared, server-pulled data cleared.
    func logout() async throws {
        await app.api.logout()
        try app.clearServerPulledData()
    }

    /// The server's records of kind `collection` (`inspections`, `issues`) with `localID`.
    func serverRecords(_ collection: String, _ localID: String) throws -> [JSONValue] {
        (try adminState()[collection]?.arrayValue ?? []).filter { $0["local_id"] == .string(localID) }
    }
}

@Suite("Unsynced work belongs to the inspector who did it, on the server it was made for (issue 20)")
struct AuthorshipIntegrationTests {
    @Test("alex's offline inspection (with a photo) and issue wait while sam syncs, then land under alex once")
    func anotherInspectorOnTheSameDevice() async throws {
        let world = try TestApp()
        try await world.login("alex")
        _ = try await world.app.sync.sync(explicit: true)
        let queued = try await world.queueInspectionWithPhotoAndIssue()
        try await world.logout()
        try await world.goOnline()
        try await world.login("sam", password: "inspect-demo")
        let asSam = try await world.app.sync.sync(explicit: true)
        #expect(asSam.stoppedBy == nil)
        #expect(try world.serverRecords("inspections", queued.inspection).isEmpty)
        #expect(try world.serverRecords("issues", queued.issue).isEmpty)
        let photosBefore = try world.adminState()["photos"]?.arrayValue?.count ?? 0
        let inspection = try world.app.inspections.inspection(localID: queued.inspection)
        #expect(inspection.syncStatus == .pending)
        #expect(inspection.outbox.attempts == 0)
        #expect(inspection.outbox.deferredReason == "waits for alex to sign in")
        #expect(inspection.outbox.author.username == "alex")
        let issue = try world.app.issues.issue(id: queued.issue)
        #expect(issue.syncStatus == .pending)
        #expect(issue.outbox.attempts == 0)
        #expect(issue.outbox.deferredReason == "waits for alex to sign in")
        let photo = try #require(
            try world.app.photos.photos(for: PhotoOwner(kind: .inspection, localID: queued.inspection)).first)
        #expect(photo.outbox.deferredReason == "waits for alex to sign in")
        let others = try await world.app.unsyncedWork().filter { $0.waitReason != nil }
        #expect(others.map(\.sentence) == ["3 items wait for alex"])
        // A second pass as sam still sends nothing of alex's and counts no try.
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.app.inspections.inspection(localID: queued.inspection).outbox.attempts == 0)
        #expect(try world.adminState()["photos"]?.arrayValue?.count ?? 0 == photosBefore)

        try await world.logout()
        try await world.login("alex")
        let asAlex = try await world.app.sync.sync(explicit: true)
        #expect(asAlex.stoppedBy == nil)
        let landed = try world.serverRecords("inspections", queued.inspection)
        #expect(landed.count == 1)
        #expect(landed.first?["inspector_id"] == .int(7))
        let formData = try #require(landed.first?["form_data"]?.objectValue)
        #expect(formData["9"]?.stringValue?.hasPrefix("uploads/inspection_photos/") == true)
        let issues = try world.serverRecords("issues", queued.issue)
        #expect(issues.count == 1)
        #expect(issues.first?["reported_by_name"] == "Alex Rivera")
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.serverRecords("inspections", queued.inspection).count == 1)
        #expect(try world.serverRecords("issues", queued.issue).count == 1)
        #expect(try world.app.inspections.inspection(localID: queued.inspection).syncStatus == .synced)
        #expect(try world.app.issues.issue(id: queued.issue).syncStatus == .synced)
        #expect(try await world.app.unsyncedWork().isEmpty)
    }

    @Test("work queued for one server waits after a switch to another, and lands on its own server once back")
    func serverSwitchAndBack() async throws {
        let world = try TestApp()
        let otherDirectory = TemporaryDirectory(prefix: "jqc-it-server-b")
        let other = DevServer(
            configuration: DevServerConfiguration(dataDirectory: otherDirectory.url, seed: .demo, admin: true))
        _ = try other.start()
        defer { other.stop() }
        let otherURL = try #require(other.baseURL)
        try await world.login("alex")
        _ = try await world.app.sync.sync(explicit: true)
        let queued = try await world.queueInspectionWithPhotoAndIssue()
        // The shell's `server URL --yes`: signed out, server-pulled data cleared, the new server recorded.
        try await world.logout()
        try world.selection.save(otherURL.absoluteString)
        try await world.app.recordOutboxSession()
        try await world.goOnline()
        try await world.login("alex")
        let onB = try await world.app.sync.sync(explicit: true)
        #expect(onB.stoppedBy == nil)
        let stateB = try AdminRequest.send(otherURL, "GET", "/__admin/state", nil)["data"] ?? .null
        #expect(
            (stateB["inspections"]?.arrayValue ?? []).contains { $0["local_id"] == .string(queued.inspection) }
                == false)
        #expect((stateB["issues"]?.arrayValue ?? []).contains { $0["local_id"] == .string(queued.issue) } == false)
        #expect(try world.serverRecords("inspections", queued.inspection).isEmpty)
        let waiting = try world.app.inspections.inspection(localID: queued.inspection).outbox
        #expect(waiting.deferredReason == "was made for server \(world.baseURL.absoluteString)")
        #expect(waiting.attempts == 0)
        #expect(try world.app.issues.issue(id: queued.issue).outbox.deferredReason == waiting.deferredReason)

        try await world.logout()
        try world.selection.save(world.baseURL.absoluteString)
        try await world.app.recordOutboxSession()
        try await world.login("alex")
        _ = try await world.app.sync.sync(explicit: true)
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.serverRecords("inspections", queued.inspection).count == 1)
        #expect(try world.serverRecords("issues", queued.issue).count == 1)
        #expect(try world.app.inspections.inspection(localID: queued.inspection).syncStatus == .synced)
    }
}
