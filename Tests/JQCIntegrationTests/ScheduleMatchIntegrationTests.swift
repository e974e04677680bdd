import Foundation
import JQCComposition
import JQCInspections
import JQCKit
import JQCScheduling
import Testing

/// Issue 18, rule 69: the submit hook's own decision, against the dev server's schedules.
@Suite("Rule 69's hand-picked match through the submit hook")
struct ScheduleMatchIntegrationTests {
    @Test("a hand-picked start fulfils the earliest-due matching schedule, not the one with the lowest id")
    func earliestDueWins() async throws {
        let world = try TestApp(today: try #require(CalendarDay("2026-07-14")))
        try await world.readyWithToday()
        // Re-date 904 (facility 11, template 3, parent 501) to before 901 (same pair, due today): the server
        // accepts it; the client's own command would refuse a past day.
        _ = try await world.app.api.sendJSON(
            .post, path: SchedulingService.followUpPath, body: ["parent_inspection_id": 501, "due_date": "2026-07-10"])
        _ = try await world.app.sync.sync(explicit: true)
        let due = try world.app.scheduling.scheduled().filter { [901, 904].contains($0.serverID) }
        #expect(due.map(\.serverID) == [904, 901])
        #expect(due.map(\.dueDate.text) == ["2026-07-10", "2026-07-14"])
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11))
        try world.app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        let result = try world.app.inspections.submit(localID: draft.localID)
        #expect(result.inspection.scheduledInspectionServerID == 904)
        #expect(try world.app.scheduling.scheduled().map(\.serverID).contains(901))
    }

    @Test("a re-inspection whose parent is not on the device never fulfils a regular schedule")
    func reinspectionOfAbsentParentNeverMatches() async throws {
        let world = try TestApp(today: try #require(CalendarDay("2026-07-14")))
        try await world.readyWithToday()
        #expect(try world.app.inspections.list().isEmpty)  // parent 501 is not on this device
        let draft = try world.app.inspections.start(
            StartRequest(templateID: 3, facilityID: 11, parentInspectionServerID: 501))
        try world.app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        let result = try world.app.inspections.submit(localID: draft.localID)
        #expect(result.inspection.scheduledInspectionServerID == nil)  // 901 (due today, same pair) stays open
        #expect(try world.app.scheduling.scheduled().map(\.serverID).contains(901))
    }
}
