import Foundation
import JQCComposition
import JQCFacilities
import JQCInspections
import JQCKit
import JQCNetwork
import JQCSync
import Testing

extension TestApp {
    /// Signs in as alex and pulls reference data.
    func ready() async throws {
        try await login()
        _ = try await app.sync.sync(explicit: true)
    }

    /// A submitted Restroom QC inspection at Main Courthouse; returns its local id.
    func submitted() throws -> String {
        let draft = try app.inspections.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111))
        try app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        _ = try app.inspections.submit(localID: draft.localID)
        return draft.localID
    }

    /// The server's records with this local id.
    func serverRecords(_ localID: String) throws -> [JSONValue] {
        (try adminState()["inspections"]?.arrayValue ?? []).filter { $0["local_id"] == .string(localID) }
    }

    func local(_ localID: String) throws -> Inspection { try app.inspections.inspection(localID: localID) }
}

@Suite("Inspections and reference data against the dev server's fault modes (issue 7)")
struct InspectionSyncIntegrationTests {
    @Test(
        "reference pull: the repeated facility 21 is stored once, contracts come from active facilities, areas belong")
    func referencePull() async throws {
        let world = try TestApp()
        try await world.ready()
        let facilities = try world.app.reference.facilities().value
        #expect(facilities.filter { $0.id == 21 }.count == 1)
        #expect(facilities.map(\.id).sorted() == [11, 12, 21, 22])
        #expect(try world.app.reference.contracts().value.map(\.id) == [1, 2])
        #expect(try world.app.reference.areas(facilityID: 11).value.map(\.id).sorted() == [111, 112, 113])
        #expect(try world.app.reference.templates().value.allSatisfy(\.isActive))
    }

    @Test("5xx then success: the first pass keeps it pending with one try, the next lands it exactly once")
    func serverErrorThenSuccess() async throws {
        let world = try TestApp()
        try await world.ready()
        let id = try world.submitted()
        try world.fault(["method": "POST", "path_prefix": "/api/v1/inspections", "mode": "status", "status": 500])
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.local(id).syncStatus == .pending)
        #expect(try world.local(id).syncAttempts == 1)
        #expect(try world.serverRecords(id).isEmpty)
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.local(id).syncStatus == .synced)
        #expect(try world.serverRecords(id).count == 1)
        #expect(try world.local(id).serverID == world.serverRecords(id).first?["id"]?.intValue.map { Int($0) })
    }

    @Test("a 422 poison item is failed alone with the server's sentence while the rest lands")
    func poisonItem() async throws {
        let world = try TestApp()
        try await world.ready()
        let poison = try world.submitted()
        let good = try world.submitted()
        try world.fault(["method": "POST", "path_prefix": "/api/v1/inspections", "mode": "status", "status": 422])
        _ = try await world.app.sync.sync(explicit: true)
        let failed = try world.local(poison)
        #expect(failed.syncStatus == .failed)
        #expect(failed.syncError?.isEmpty == false)
        #expect(try world.local(good).syncStatus == .synced)
        #expect(try world.serverRecords(good).count == 1)
        let status = try world.app.outboxStatus()
        #expect(status.pending["inspections"] == 0)
        #expect(status.failed.map(\.localID) == [poison])
    }

    @Test("drop_after (applied, reply lost): exactly one server record and nothing pending after the next pass")
    func dropAfter() async throws {
        let world = try TestApp()
        try await world.ready()
        let id = try world.submitted()
        try world.fault(["method": "POST", "path_prefix": "/api/v1/inspections", "mode": "drop_after"])
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.local(id).syncStatus == .pending)
        #expect(try world.serverRecords(id).count == 1)
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.local(id).syncStatus == .synced)
        #expect(try world.serverRecords(id).count == 1)
        #expect(try world.app.outboxStatus().pending["inspections"] == 0)
    }

    @Test("killed mid-sync (reply lost, process gone) then restarted: nothing lost, nothing duplicated")
    func restartMidSync() async throws {
        let world = try TestApp()
        try await world.ready()
        let ids = try (0..<3).map { _ in try world.submitted() }
        try world.fault(["method": "POST", "path_prefix": "/api/v1/inspections", "mode": "drop_after", "count": 2])
        _ = try await world.app.sync.sync(explicit: true)
        try world.restart()
        _ = await world.app.launch(background: false)
        _ = try await world.app.sync.sync(explicit: true)
        for id in ids {
            #expect(try world.serverRecords(id).count == 1)
            #expect(try world.local(id).syncStatus == .synced)
        }
        #expect(try world.app.outboxStatus().pending["inspections"] == 0)
    }

    @Test("an access token that expires before the pass is refreshed once and the inspection lands")
    func tokenExpiry() async throws {
        let world = try TestApp()
        try await world.ready()
        let id = try world.submitted()
        try world.admin("POST", "/__admin/expire-tokens", nil)
        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stoppedBy == nil)
        #expect(try world.local(id).syncStatus == .synced)
        #expect(try world.serverRecords(id).count == 1)
        #expect(await world.app.api.isSignedIn)
        #expect(await world.app.api.refreshesSent == 1)
    }

    @Test("offline: submit works locally, no request leaves, and the cached reference data stays readable")
    func offline() async throws {
        let world = try TestApp()
        try await world.ready()
        let before = try world.adminState()["inspections"]?.arrayValue?.count
        try await world.app.connectivity.setForcedOffline(true)
        let id = try world.submitted()
        await #expect(throws: SyncStopError.self) { try await world.app.sync.sync(explicit: true) }
        #expect(try world.adminState()["inspections"]?.arrayValue?.count == before)
        #expect(try world.local(id).syncStatus == .pending)
        #expect(try world.local(id).syncAttempts == 0)
        #expect(try world.app.reference.facilities().phase == .content)
        await #expect(throws: APIError.airplaneMode) { try await world.app.history.page(0) }
    }

    @Test("clear cache removes reference data only; a draft stays and its facility comes back on the next pull")
    func clearCacheKeepsWork() async throws {
        let world = try TestApp()
        try await world.ready()
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11))
        let done = try world.submitted()
        try world.app.reference.clearCache()
        #expect(try world.app.reference.facilities().value.isEmpty)
        #expect(try world.app.inspections.list().map(\.localID).sorted() == [draft.localID, done].sorted())
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.app.reference.facilities().value.isEmpty == false)
        #expect(try world.local(done).syncStatus == .synced)
    }

    @Test("history is paged by 30 and includes a just-synced inspection")
    func history() async throws {
        let world = try TestApp()
        try await world.ready()
        let id = try world.submitted()
        _ = try await world.app.sync.sync(explicit: true)
        let page = try await world.app.history.page(0)
        #expect(page.inspections.contains { $0.localID == id })
        #expect(page.inspections.count <= InspectionHistory.pageSize)
        let serverID = try #require(try world.local(id).serverID)
        #expect(try await world.app.history.show(serverID: serverID).localID == id)
    }
}

@Suite("Composition wiring for issue 7")
struct InspectionCompositionTests {
    /// (The pass's order is asserted by what it sends: PassOrderIntegrationTests.)
    @Test("status counts completed inspections only; every other kind stays at zero")
    func status() async throws {
        let world = try TestApp()
        try await world.ready()
        _ = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11))
        _ = try world.submitted()
        let pending = try world.app.outboxStatus().pending
        #expect(pending["inspections"] == 1)
        #expect(pending.filter { $0.key != "inspections" }.values.allSatisfy { $0 == 0 })
    }

    @Test("rule 42: clearing server-pulled data empties the reference cache and keeps every local inspection")
    func serverSwitchKeepsWork() async throws {
        let world = try TestApp()
        try await world.ready()
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11))
        let pending = try world.submitted()
        try world.app.clearServerPulledData()
        #expect(try world.app.reference.facilities().value.isEmpty)
        #expect(try world.app.reference.templates().value.isEmpty)
        #expect(Set(try world.app.inspections.list().map(\.localID)) == [draft.localID, pending])
        #expect(try world.local(pending).syncStatus == .pending)
    }
}
