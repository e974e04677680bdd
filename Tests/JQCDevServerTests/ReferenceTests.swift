import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

@Suite("Reference data, scope and rebasing")
struct ReferenceTests {
    @Test("facilities are the active ones of the user's contracts, with the seed's duplicate repeated")
    func facilities() throws {
        let harness = try Harness()
        let alex = harness.get("/facilities", token: harness.token("alex"))
        #expect(alex.data?.ids == [11, 12, 21, 21, 22])
        #expect(alex.data?.arrayValue?.first?["project_name"] == "County Courthouse Contract")
        let sam = harness.get("/facilities", token: harness.token("sam"))
        #expect(sam.data?.ids == [21, 21, 22])
        let dana = harness.get("/facilities", token: harness.token("dana"))
        #expect(dana.data?.ids == [11, 12, 21, 21, 22, 31])
    }

    @Test("areas are those of facilities in scope; templates are the active ones with their schema untouched")
    func areasAndTemplates() throws {
        let harness = try Harness()
        let token = harness.token("sam")
        #expect(harness.get("/areas", token: token).data?.ids == [211, 212, 221])
        let templates = harness.get("/templates", token: token).data
        #expect(templates?.ids == [3, 4, 5])
        let office = templates?.arrayValue?[1]
        #expect(
            office?["form_schema"]?.arrayValue?.first == [
                "id": "101", "type": "section", "label": "Office Areas", "row": 1, "col": 1, "colSpan": 12,
            ])
    }

    @Test("seed dates are rebased onto the server's today and new ids are above every seeded id")
    func rebasing() throws {
        let harness = try Harness(today: "2026-07-24")
        let token = harness.token("alex")
        #expect(harness.get("/health").data?["today"] == "2026-07-24")
        let inspection = harness.get("/inspections/501", token: token).data
        #expect(inspection?["inspection_date"] == "2026-07-20")
        #expect(inspection?["started_at"] == "2026-07-20T08:02:00-04:00")
        let schedules = harness.get("/scheduled-inspections", token: token).data
        #expect(schedules?.arrayValue?.first { $0["id"] == 901 }?["due_date"] == "2026-07-24")
        let created = harness.request(
            "POST", "/issues",
            [
                "facility_id": 11, "severity": "low", "description": "Scuff",
            ], token: token)
        #expect((created.data?["id"]?.intValue ?? 0) > 3003)
    }

    @Test("without --today the server's today is the real date in the seed's time zone")
    func realToday() throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_784_000_000))  // 2026-07-14T03:33:20Z
        let harness = try Harness(today: nil, clock: clock)
        #expect(harness.get("/health").data?["today"] == "2026-07-13")
    }

    @Test("a placeholder JPEG is served for every seed photo path without a token; traversal is 404")
    func staticFiles() throws {
        let harness = try Harness()
        let reply = harness.get("/static/uploads/issue_photos/seed-48-a.jpg")
        #expect(reply.status == 200)
        #expect(reply.body == PlaceholderJPEG.data)
        #expect(harness.get("/static/uploads/inspection_photos/seed-501-9.jpg").status == 200)
        #expect(harness.get("/static/uploads/issue_photos/none.jpg").status == 404)
        try FileManager.default.removeItem(at: harness.directory.url.appendingPathComponent("data/uploads"))
        try harness.restart()
        #expect(harness.get("/static/uploads/issue_photos/seed-48-fixed.jpg").body == PlaceholderJPEG.data)
        let traversal = harness.curl(["--path-as-is", harness.base + "/static/uploads/../server.sqlite"])
        #expect(traversal.status == 404)
        let encoded = harness.curl(["--path-as-is", harness.base + "/static/uploads/%2e%2e/server.sqlite"])
        #expect(encoded.status == 404)
        #expect(harness.get("/static/server.sqlite").status == 404)
        #expect(harness.get("/static/uploads/../../../../etc/passwd").status == 404)
    }
}

@Suite("Custom seeds")
struct CustomSeedTests {
    @Test("a seed file is loaded, rebased and numbered like the demo seed")
    func seedFile() throws {
        let directory = TemporaryDirectory(prefix: "jqc-devserver-seed")
        let seed: JSONValue = [
            "today": "2026-01-10", "timezone": "UTC",
            "users": [
                [
                    "id": 1, "username": "kim", "password": "pw", "role": "supervisor", "full_name": "",
                    "email": "kim@example.com", "project_ids": [5],
                ]
            ],
            "projects": [["id": 5, "name": "Depot"]],
            "facilities": [["id": 50, "name": "Depot", "address": "1 Rd", "project_id": 5, "is_active": true]],
            "areas": [], "templates": [],
            "scheduled_inspections": [
                [
                    "id": 70, "facility_id": 50, "template_id": 1, "inspector_id": nil,
                    "frequency": "weekly", "due_date": "2026-01-09", "notes": nil,
                    "parent_inspection_id": nil, "active": true,
                ]
            ],
        ]
        let file = directory.path("seed.json")
        try seed.jsonData().write(to: file)
        let server = DevServer(
            configuration: DevServerConfiguration(
                dataDirectory: directory.path("data"), seed: .file(file), today: CalendarDay("2026-01-20")))
        let port = try server.start()
        defer { server.stop() }
        let harness = try Harness()
        harness.base = "http://127.0.0.1:\(port)"
        let token = harness.login("kim", "pw").access
        #expect(harness.get("/auth/me", token: token).data?["username"] == "kim")
        #expect(harness.get("/facilities", token: token).data?.ids == [50])
        let schedule = harness.get("/scheduled-inspections", token: token).data?.arrayValue?.first
        #expect(schedule?["due_date"] == "2026-01-19")
        #expect(schedule?["is_overdue"] == true)
        let issue = harness.request(
            "POST", "/issues", ["facility_id": 50, "severity": "low", "description": "x"],
            token: token)
        #expect(issue.data?["id"] == 71)
    }
}
