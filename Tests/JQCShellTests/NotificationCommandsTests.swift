import Foundation
import JQCKit
import JQCTestSupport
import Testing

private let signIn = "login alex --password inspect-demo; sync"

@Suite("jqc-shell notifications and dashboard (issue 9)")
struct NotificationCommandsTests {
    @Test("after login and sync, notifications lists the pulled ones newest first; banners go to stderr")
    func listAfterSync() throws {
        let result = try ShellHarness().run(["--json", "-c", "\(signIn); notifications; notifications"])
        #expect(result.status == 0)
        #expect(result.jsonLines.count == 4)
        let data = try #require(result.jsonLines[2]["data"])
        #expect(result.jsonLines[2]["command"] == "notifications")
        let items = try #require(data["notifications"]?.arrayValue)
        #expect(items.map { $0["id"] } == [3002, 3001, 3003])
        #expect(items.map { $0["read"] } == [false, false, true])
        #expect(items[1]["title"] == "Issue #49 assigned to you")
        #expect(items[1]["body"] == "Hand dryer not working at Riverside Clinic A")
        #expect(
            items.allSatisfy { item in
                ["id", "title", "read", "body", "created_at", "link", "event_type"].allSatisfy { item[$0] != nil }
            })
        #expect(data["unread"] == 2)
        // Listing marks nothing read (rule 50 is the iPad's screen, not this command).
        #expect(result.jsonLines[3]["data"]?["unread"] == 2)
        let banners = result.stderr.split(separator: "\n").filter { $0.hasPrefix("[notification] ") }
        #expect(
            banners == [
                "[notification] Issue #49 assigned to you — Hand dryer not working at Riverside Clinic A",
                "[notification] Follow-up requested — Re-check floors after the noon clean (Main Courthouse)",
            ])
    }

    @Test("--mark-read offline marks every unread one read at once and queues the server call")
    func markReadOfflineThenSync() throws {
        let harness = ShellHarness()
        let first = try harness.run(["--json", "-c", "\(signIn); offline; notifications --mark-read"])
        #expect(first.status == 0)
        let marked = try #require(first.jsonLines.last?["data"])
        #expect(marked["marked"] == 2)
        #expect(marked["queued"] == 2)
        #expect(marked["unread"] == 0)
        #expect(marked["notifications"]?.arrayValue?.map { $0["read"] } == [true, true, true])

        let second = try harness.run(["--json", "-c", "online; sync; notifications --mark-read"])
        #expect(second.status == 0)
        let stages = second.jsonLines[1]["data"]?["stages"]?.arrayValue ?? []
        #expect(stages.first { $0["name"] == "notifications" }?["pushed"] == 2)
        #expect(second.jsonLines[2]["data"]?["marked"] == 0)
        #expect(second.jsonLines[2]["data"]?["queued"] == 0)
        #expect(second.jsonLines[2]["data"]?["unread"] == 0)
    }

    @Test("dashboard shows the stats keys with fetched_at and stale, and offline the cached ones with a note on stderr")
    func dashboardFreshThenCached() throws {
        let result = try ShellHarness().run(["--json", "-c", "\(signIn); dashboard; offline; dashboard"])
        #expect(result.status == 0)
        let fresh = try #require(result.jsonLines[2]["data"]?.objectValue)
        #expect(
            Set(fresh.keys).isSuperset(of: [
                "inspections_this_week", "average_score", "open_issues",
                "overdue_schedules", "pending_follow_ups", "fetched_at", "stale",
            ]))
        #expect(fresh["stale"] == false)
        #expect(fresh["fetched_at"]?.stringValue.flatMap(DateFormats.instant(from:)) != nil)
        let cached = try #require(result.jsonLines[4]["data"]?.objectValue)
        #expect(cached["stale"] == true)
        #expect(cached["open_issues"] == fresh["open_issues"])
        #expect(cached["fetched_at"] == fresh["fetched_at"])
        #expect(
            result.stderr.contains(
                "showing cached dashboard stats — last refresh failed: You are offline (airplane mode): type 'online'"))
    }

    @Test("dashboard with nothing cached and no server fails with a sentence")
    func dashboardNothingCached() throws {
        let result = try ShellHarness().run(["--json", "-c", "offline; dashboard"])
        #expect(result.status == 1)
        #expect(result.jsonLines.last?["ok"] == false)
        #expect(result.jsonLines.last?["error"]?.stringValue?.hasPrefix("No dashboard stats to show: ") == true)
    }

    @Test("logout clears the pulled notifications")
    func logoutClears() throws {
        let result = try ShellHarness().run(["--json", "-c", "\(signIn); logout; notifications"])
        #expect(result.status == 0)
        #expect(result.jsonLines.last?["data"]?["notifications"] == [])
        #expect(result.jsonLines.last?["data"]?["unread"] == 0)
    }
}
