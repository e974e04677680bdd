import Foundation
import JQCInspections
import JQCKit
import JQCSync
import Testing

/// Issue 11: "the clock jumping backwards" — the device clock is not to be trusted (seed 003).
@Suite("Chaos: the device clock jumps backwards")
struct ClockJumpTests {
    @Test("an item in backoff still goes on the next automatic pass after the clock jumps back an hour")
    func backoffSurvivesJumpBack() async throws {
        let clock = ManualClock(start: Date())
        let world = try TestApp(clock: clock)
        try await world.login()
        _ = try await world.app.sync.sync(explicit: true)
        let inspection = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111))
        _ = try world.app.inspections.answer(localID: inspection.localID, fieldID: "2", arguments: ["5"])
        _ = try world.app.inspections.submit(localID: inspection.localID)
        try world.fault(["method": "POST", "path_prefix": "/api/v1/inspections", "mode": "status", "status": 503])
        _ = try await world.app.sync.sync(explicit: false)  // one counted try; the item is now in backoff
        #expect(try world.app.outboxStatus().pending["inspections"] == 1)
        _ = try await world.app.sync.sync(explicit: false)  // still in backoff: not sent
        #expect(try world.app.outboxStatus().pending["inspections"] == 1)
        clock.set(clock.now.addingTimeInterval(-3600))  // the device clock jumps back an hour
        _ = try await world.app.sync.sync(explicit: false)
        #expect(try world.app.outboxStatus().pending["inspections"] == 0)
        let records = (try world.adminState()["inspections"]?.arrayValue ?? []).filter {
            $0["local_id"] == .string(inspection.localID)
        }
        #expect(records.count == 1)
        let local = try world.app.inspections.inspection(localID: inspection.localID)
        #expect(records.first?["overall_score"]?.doubleValue == local.overallScore)  // client and server agree
    }
}
