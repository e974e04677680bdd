import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCTestSupport
import Testing

@testable import JQCScheduling

/// Issue 18: planning a follow-up refuses a day before the server's today (an instantly overdue plan).
@Suite("Planning a follow-up (rule 80)")
struct FollowUpPlanningTests {
    @Test("a due date before the server's today is refused with a sentence and nothing is sent")
    func pastDateRefused() async throws {
        let world = try SchedulingWorld(serverToday: try #require(CalendarDay("2026-07-14")))
        let yesterday = try #require(CalendarDay("2026-07-13"))
        let error = await #expect(throws: SchedulingError.self) {
            try await world.service.scheduleFollowUp(parentServerID: 501, dueDate: yesterday)
        }
        #expect(error?.kind == .pastDate)
        #expect(error?.code == "scheduling.past_date")
        #expect(
            error?.message
                == "The due date 2026-07-13 is before the server's today (2026-07-14); nothing was scheduled. "
                + "Give today or a later day.")
        #expect(world.transport.requests(path: SchedulingService.followUpPath).isEmpty)
    }

    @Test("the server's today itself is accepted and sent")
    func todayAccepted() async throws {
        let world = try SchedulingWorld(serverToday: try #require(CalendarDay("2026-07-14")))
        world.transport.route(
            .post, path: SchedulingService.followUpPath, [.ok(scheduleJSON(90, due: "2026-07-14", parent: 501))])
        world.transport.route(.get, path: SchedulingService.listPath, [.ok([])])
        let today = try #require(CalendarDay("2026-07-14"))
        let schedule = try await world.service.scheduleFollowUp(parentServerID: 501, dueDate: today)
        #expect(schedule.serverID == 90)
        #expect(world.transport.requests(path: SchedulingService.followUpPath).count == 1)
    }
}
