import Foundation
import JQCKit
import Testing

@testable import JQCDevServer

@Suite("Issues, schedules, notifications, dashboard")
struct IssueTests {
    @Test("issues are those assigned to or reported by the user, with names, URLs and handler label")
    func listIssues() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let issues = harness.get("/issues", token: token).data
        #expect(issues?.ids == [50, 49, 48])
        let leak = issues?.arrayValue?.first { $0["id"] == 48 }
        #expect(
            leak?["photo_urls"]
                == .array([
                    .string(harness.base + "/static/uploads/issue_photos/seed-48-a.jpg"),
                    .string(harness.base + "/static/uploads/issue_photos/seed-48-b.jpg"),
                ]))
        #expect(
            leak?["result_photo_urls"]
                == .array([
                    .string(harness.base + "/static/uploads/issue_photos/seed-48-fixed.jpg")
                ]))
        #expect(leak?["handler_label"] == "Facility: Courthouse Maintenance")
        #expect(leak?["reported_by_name"] == "Alex Rivera")
        #expect(leak?["facility_name"] == "Main Courthouse")
        #expect(leak?["area_name"] == "1st Floor Restrooms")
        #expect(issues?.arrayValue?.first { $0["id"] == 49 }?["reported_by_name"] == "Dana Okafor")
        #expect(harness.get("/issues/51", token: token).status == 404)
        #expect(harness.get("/issues/48", token: token).data?["severity"] == "high")
    }

    @Test("a new issue is created once per local_id and its photos are replaced, never appended")
    func createAndPhotos() throws {
        let harness = try Harness()
        let token = harness.token("sam")
        let body: JSONValue = [
            "local_id": "issue-1", "facility_id": 22, "area_id": 221, "severity": "critical",
            "description": "Spill", "photo_path": "uploads/issue_photos/a.jpg",
        ]
        let created = harness.request("POST", "/issues", body, token: token)
        #expect(created.status == 201)
        let id = try #require(created.data?["id"]?.intValue)
        #expect(created.data?["status"] == "open")
        #expect(created.data?["reported_by_name"] == "sam")
        #expect(created.data?["mobile_photo_paths"] == [])
        #expect(harness.request("POST", "/issues", body, token: token).data?["id"] == .int(id))
        #expect(harness.get("/issues", token: token).data?.ids == [id])
        for _ in 0..<2 {
            let patched = harness.request(
                "PATCH", "/issues/\(id)/photos",
                [
                    "result_photos": ["uploads/issue_photos/b.jpg", "uploads/issue_photos/c.jpg"]
                ], token: token)
            #expect(
                patched.data?["mobile_photo_paths"] == ["uploads/issue_photos/b.jpg", "uploads/issue_photos/c.jpg"])
            #expect(patched.data?["photo_urls"]?.arrayValue?.count == 3)
        }
        #expect(
            harness.request("PATCH", "/issues/\(id)/photos", ["result_photos": ["local://x"]], token: token)
                .status == 422)
        #expect(
            harness.request(
                "POST", "/issues", ["facility_id": 22, "severity": "huge", "description": "x"],
                token: token
            ).status == 422)
        #expect(
            harness.request(
                "POST", "/issues", ["facility_id": 11, "severity": "low", "description": "x"],
                token: token
            ).status == 422)
    }

    @Test("status and handler updates are validated and the handler label follows the type")
    func statusAndHandler() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let resolved = harness.request("PATCH", "/issues/49/status", ["status": "resolved"], token: token)
        #expect(resolved.data?["status"] == "resolved")
        #expect(harness.request("PATCH", "/issues/49/status", ["status": "closed"], token: token).status == 422)
        #expect(harness.request("PATCH", "/issues/49/status", ["status": 3], token: token).status == 400)
        let vendor = harness.request(
            "PATCH", "/issues/48/handler",
            [
                "handler_type": "vendor", "vendor_name": "Pipes Inc", "vendor_contact": "555",
            ], token: token)
        #expect(vendor.data?["handler_label"] == "Vendor: Pipes Inc")
        #expect(vendor.data?["facility_handler_name"] == .null)
        let internalTeam = harness.request("PATCH", "/issues/48/handler", ["handler_type": "internal"], token: token)
        #expect(internalTeam.data?["handler_label"] == "Internal team")
        #expect(harness.request("PATCH", "/issues/48/handler", ["handler_type": "alien"], token: token).status == 422)
        #expect(harness.request("PATCH", "/issues/51/status", ["status": "resolved"], token: token).status == 404)
    }

    @Test("comments are listed oldest first with the author's display name")
    func comments() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        #expect(harness.get("/issues/48/comments", token: token).data == [])
        let added = harness.request("POST", "/issues/48/comments", ["body": "On it"], token: token)
        #expect(added.status == 201)
        let list = harness.get("/issues/48/comments", token: token).data?.arrayValue
        #expect(list?.count == 1)
        #expect(list?.first?["author_name"] == "Alex Rivera")
        #expect(list?.first?["body"] == "On it")
        #expect(harness.request("POST", "/issues/48/comments", ["body": "  "], token: token).status == 422)
    }

    @Test("scheduled inspections are active ones assigned to the user or unassigned in scope")
    func schedules() throws {
        let harness = try Harness()
        let list = harness.get("/scheduled-inspections", token: harness.token("alex")).data
        #expect(list?.ids == [902, 901, 904, 903])
        let first = list?.arrayValue?.first
        #expect(first?["is_overdue"] == true)
        #expect(first?["frequency_label"] == "One-time")
        #expect(first?["next_due_date"] == .null)
        let weekly = list?.arrayValue?.last
        #expect(weekly?["inspector_id"] == .null)
        #expect(weekly?["next_due_date"] == "2026-07-27")
        #expect(weekly?["frequency_label"] == "Weekly")
        #expect(harness.get("/scheduled-inspections", token: harness.token("sam")).data?.ids == [])
        #expect(harness.get("/scheduled-inspections", token: harness.token("dana")).data?.ids == [905, 903])
    }

    @Test("notifications honour the since cursor and mark-read counts what it changed")
    func notifications() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let all = harness.get("/notifications", token: token).data
        #expect(all?.ids == [3003, 3001, 3002])
        #expect(all?.arrayValue?.first?["read"] == true)
        let since = harness.get("/notifications?since=2026-07-11T09:00:05-04:00", token: token).data
        #expect(since?.ids == [3002])
        let encoded = harness.get("/notifications?since=2026-07-11T13:00:05Z", token: token).data
        #expect(encoded?.ids == [3002])
        #expect(harness.get("/notifications?since=yesterday", token: token).status == 400)
        let marked = harness.request("PATCH", "/notifications/mark-read", ["ids": [3001, 3002, 3003]], token: token)
        #expect(marked.data == ["updated": 2])
        #expect(harness.get("/notifications", token: token).data?.arrayValue?.allSatisfy { $0["read"] == true } == true)
        let added = harness.request("POST", "/__admin/notify", ["user_id": 7, "title": "New"])
        #expect(added.status == 200)
        let newest = harness.get("/notifications?since=2026-07-12T12:00:00-04:00", token: token).data
        #expect(newest?.arrayValue?.map { $0["title"] } == ["New"])
        #expect(harness.get("/notifications", token: harness.token("sam")).data == [])
    }

    @Test("dashboard stats count this week, open issues, overdue schedules and pending follow-ups")
    func dashboard() throws {
        let harness = try Harness()
        let alex = harness.get("/dashboard/stats", token: harness.token("alex")).data
        #expect(
            alex == [
                "inspections_this_week": 2, "average_score": 74.16, "open_issues": 2, "overdue_schedules": 1,
                "pending_follow_ups": 1,
            ])
        let dana = harness.get("/dashboard/stats", token: harness.token("dana")).data
        #expect(dana?["overdue_schedules"] == 1)
        #expect(dana?["open_issues"] == 2)
    }
}
