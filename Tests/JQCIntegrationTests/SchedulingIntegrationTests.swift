import Foundation
import JQCComposition
import JQCFollowUps
import JQCInspections
import JQCKit
import JQCScheduling
import Testing

extension TestApp {
    /// Signs in as alex, learns the server's today from `/health` (as the monitor does at launch), syncs.
    func readyWithToday() async throws {
        try await login()
        _ = await app.connectivity.probeNow()
        _ = try await app.sync.sync(explicit: true)
    }

    /// The server's schedule with `id` (from `/__admin/state`, with its `active` flag).
    func serverSchedule(_ id: Int64) throws -> JSONValue? {
        (try adminState()["scheduled_inspections"]?.arrayValue ?? []).first { $0["id"] == .int(id) }
    }

    /// The server's inspection with `id`.
    func serverInspection(_ id: Int64) throws -> JSONValue? {
        (try adminState()["inspections"]?.arrayValue ?? []).first { $0["id"] == .int(id) }
    }
}

/// The seed's today (a valid literal; `#require` keeps a typo from crashing the process).
private func seedDay() throws -> CalendarDay { try #require(CalendarDay("2026-07-14")) }

@Suite("Scheduled inspections and follow-ups against the dev server (issue 9)")
struct SchedulingIntegrationTests {
    @Test(
        "rule 71: a daily schedule done from its row hides at once, then shows its rolled-forward date after a pull")
    func dailyScheduleRollsForward() async throws {
        let world = try TestApp(today: try seedDay())
        try await world.readyWithToday()
        let daily = try #require(try world.app.scheduling.scheduled().first { $0.serverID == 901 })
        #expect(try daily.dueDate == seedDay())
        #expect(daily.instructions == "Check the 1st floor restrooms after the 7am clean.")
        let start = try world.app.scheduling.start(scheduleID: 901, areaID: 111)
        let draft = try world.app.inspections.start(start.request)
        #expect(draft.scheduledInspectionServerID == 901)
        try world.app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        _ = try world.app.inspections.submit(localID: draft.localID)
        #expect(try world.app.scheduling.scheduled().contains { $0.serverID == 901 } == false)
        _ = try await world.app.sync.sync(explicit: true)
        let rolled = try #require(try world.app.scheduling.scheduled().first { $0.serverID == 901 })
        #expect(try rolled.dueDate == #require(CalendarDay("2026-07-15")))
        #expect(rolled.fulfilledLocally == false)
        #expect(try world.serverRecords(draft.localID).first?["scheduled_inspection_id"] == 901)
    }

    @Test(
        "a hand-picked start fulfils the overdue one-time schedule: hidden at once, inactive on the server after sync")
    func handPickedStartFulfilsOverdueSchedule() async throws {
        let world = try TestApp(today: try seedDay())
        try await world.readyWithToday()
        let overdue = try #require(try world.app.scheduling.scheduled().first { $0.serverID == 902 })
        #expect(overdue.isOverdue(today: world.app.scheduling.today))
        let draft = try world.app.inspections.start(StartRequest(templateID: 4, facilityID: 21))
        try world.app.inspections.answer(localID: draft.localID, fieldID: "109", arguments: ["yes"])
        let result = try world.app.inspections.submit(localID: draft.localID)
        #expect(result.inspection.scheduledInspectionServerID == 902)  // the result shows the link (issue 18)
        #expect(try world.app.inspections.inspection(localID: draft.localID).scheduledInspectionServerID == 902)
        #expect(try world.app.scheduling.scheduled().contains { $0.serverID == 902 } == false)
        #expect(try world.serverSchedule(902)?["active"] == true)
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.serverSchedule(902)?["active"] == false)
        #expect(try world.app.scheduling.store.schedule(serverID: 902) == nil)
    }

    @Test(
        "a follow-up re-inspection: prefilled from the snapshot (scored types, image, signature blank); parent cleared")
    func followUpPrefilledAndCleared() async throws {
        let world = try TestApp(today: try seedDay())
        try await world.readyWithToday()
        #expect(try world.app.followUps.followUps().map(\.serverID) == [501])
        let request = try world.app.followUps.start(parent: "501")
        #expect(request.scheduledInspectionServerID == 904)  // the planned follow-up is linked too
        let draft = try world.app.inspections.start(request)
        #expect(draft.parentInspectionServerID == 501)
        #expect(
            draft.formData == [
                "6": "true", "7": "Poor", "8": "Men", "10": "Floor wet near sinks", "13": "2026-07-10", "14": "J. Park",
            ])
        try world.app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["5"])
        _ = try world.app.inspections.submit(localID: draft.localID)
        #expect(try world.app.followUps.followUps().isEmpty)
        #expect(try world.serverInspection(501)?["follow_up_required"] == true)
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.serverInspection(501)?["follow_up_required"] == false)
        #expect(try world.serverSchedule(904)?["active"] == false)
        #expect(try world.app.followUps.store.request(serverID: 501) == nil)
    }

    @Test("a follow-up for a parent absent from the device is still prefilled, offline")
    func absentParentPrefilledOffline() async throws {
        let world = try TestApp(today: try seedDay())
        try await world.readyWithToday()
        #expect(try world.app.inspections.list().isEmpty)
        try await world.app.connectivity.setForcedOffline(true)
        let draft = try world.app.inspections.start(try world.app.followUps.start(parent: "501", areaID: 112))
        #expect(draft.areaID == 112)
        #expect(draft.parentInspectionLocalID == nil)
        #expect(draft.formData["10"] == "Floor wet near sinks")
        #expect(draft.formData["9"] == nil)
        #expect(draft.formData["2"] == nil)
        #expect(draft.formData.count == 6)
    }

    @Test("scheduling a follow-up twice keeps one schedule, re-dated; offline it is refused and nothing changes")
    func scheduleFollowUpTwice() async throws {
        let world = try TestApp(today: try seedDay())
        try await world.readyWithToday()
        let first = try await world.app.scheduling.scheduleFollowUp(
            parentServerID: 501, dueDate: try #require(CalendarDay("2026-07-20")), notes: "Bring mats")
        let second = try await world.app.scheduling.scheduleFollowUp(
            parentServerID: 501, dueDate: try #require(CalendarDay("2026-07-22")))
        #expect(first.serverID == second.serverID)
        let onServer = (try world.adminState()["scheduled_inspections"]?.arrayValue ?? []).filter {
            $0["parent_inspection_id"] == 501 && $0["active"] == true
        }
        #expect(onServer.count == 1)
        #expect(onServer.first?["due_date"] == "2026-07-22")
        let cached = try world.app.scheduling.scheduled().filter { $0.parentInspectionID == 501 }
        #expect(try cached.map(\.dueDate) == [#require(CalendarDay("2026-07-22"))])
        #expect(cached.first?.instructions == "Bring mats")
        try await world.app.connectivity.setForcedOffline(true)
        await #expect(throws: SchedulingError.self) {
            _ = try await world.app.scheduling.scheduleFollowUp(
                parentServerID: 501, dueDate: try #require(CalendarDay("2026-07-30")))
        }
        try await world.app.connectivity.setForcedOffline(false)
        #expect(try world.serverSchedule(first.serverID.int64)?["due_date"] == "2026-07-22")
    }

    @Test("rule 42: logout's clearing empties the schedule and follow-up caches and keeps local inspections")
    func clearServerPulledData() async throws {
        let world = try TestApp(today: try seedDay())
        try await world.readyWithToday()
        let draft = try world.app.inspections.start(try world.app.followUps.start(parent: "501"))
        #expect(try world.app.scheduling.scheduled().count == 4)
        try world.app.clearServerPulledData()
        #expect(try world.app.scheduling.store.all(visibleOnly: false).isEmpty)
        #expect(try world.app.followUps.store.all(visibleOnly: false).isEmpty)
        #expect(try world.app.scheduling.store.lastServerToday() == nil)
        #expect(try world.app.inspections.inspection(localID: draft.localID).parentInspectionServerID == 501)
    }

    @Test(
        "history's Re-inspect Now: a parent neither local nor flagged is fetched online and prefilled from its answers")
    func reinspectFromHistory() async throws {
        let world = try TestApp(today: try seedDay())
        try await world.readyWithToday()
        let request = try await world.app.followUps.start(parentServerID: 502)
        #expect(request.templateID == 4)
        #expect(request.facilityID == 21)
        #expect(request.parentInspectionServerID == 502)
        #expect(
            request.initialAnswers == [
                "102": ["Vacuumed", "Trash"], "105": "Yes",
                "106": [["Item": "Towels", "Count": "12", "Reorder?": "no"]],
                "107": "4", "108": "", "109": "true",
            ])
        await #expect(throws: FollowUpsError.self) { _ = try await world.app.followUps.start(parentServerID: 503) }
        try await world.app.connectivity.setForcedOffline(true)
        do {
            _ = try await world.app.followUps.start(parentServerID: 502)
            Issue.record("offline, a parent that is not on the device cannot be started")
        } catch let error as FollowUpsError {
            #expect(error.kind == .unavailable)
        }
    }
}

private extension Int {
    var int64: Int64 { Int64(self) }
}
