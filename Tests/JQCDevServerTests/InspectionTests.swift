import Foundation
import JQCKit
import Testing

@testable import JQCDevServer

@Suite("Inspections")
struct InspectionTests {
    static let restroomAnswers: JSONValue = [
        "2": "5", "3": "4", "4": "Pass", "5": "Pass", "6": true, "7": "Good",
        "9": "uploads/inspection_photos/seed-501-9.jpg",
    ]

    func submission(_ extra: [String: JSONValue] = [:]) -> JSONValue {
        var body: [String: JSONValue] = [
            "template_id": 3, "facility_id": 11, "area_id": 111, "status": "completed",
            "form_data": Self.restroomAnswers, "overall_score": 1.0,
            "started_at": "2026-07-14T08:00:00-04:00", "completed_at": "2026-07-14T08:10:00-04:00",
        ]
        for (key, value) in extra { body[key] = value }
        return .object(body)
    }

    @Test("inspectors see their own inspections; supervisors and above see their contracts'")
    func scope() throws {
        let harness = try Harness()
        #expect(
            harness.get("/inspections?status=completed", token: harness.token("alex")).data?["inspections"]?.ids
                == [501, 502])
        #expect(harness.get("/inspections", token: harness.token("sam")).data?["inspections"]?.ids == [504, 503])
        #expect(
            harness.get("/inspections", token: harness.token("dana")).data?["inspections"]?.ids
                == [501, 502, 504, 503])
        let alex = harness.token("alex")
        #expect(harness.get("/inspections/503", token: alex).status == 404)
        #expect(harness.get("/inspections/99999", token: alex).status == 404)
        #expect(harness.get("/inspections/abc", token: alex).status == 404)
        let shown = harness.get("/inspections/501", token: alex).data
        #expect(shown?["template_name"] == "Restroom QC")
        #expect(shown?["inspector_name"] == "Alex Rivera")
        #expect(shown?["area_name"] == "1st Floor Restrooms")
        #expect(
            shown?["form_media"] == [
                "9": .string(harness.base + "/static/uploads/inspection_photos/seed-501-9.jpg")
            ])
        #expect(shown?["overall_score"] == .double(53.33))
    }

    @Test("outstanding follow-ups are flagged, completed and childless (rule 78)")
    func outstandingFollowUps() throws {
        let harness = try Harness()
        let path = "/inspections?follow_up_required=true&limit=200"
        #expect(harness.get(path, token: harness.token("alex")).data?["inspections"]?.ids == [501])
        #expect(harness.get(path, token: harness.token("sam")).data?["inspections"]?.ids == [])
        #expect(harness.get(path, token: harness.token("dana")).data?["inspections"]?.ids == [501])
    }

    @Test("paging returns the page, the total, and clamps limit to 200")
    func paging() throws {
        let harness = try Harness()
        let token = harness.token("dana")
        let page = harness.get("/inspections?status=completed&limit=2&offset=1", token: token).data
        #expect(page?["inspections"]?.ids == [502, 504])
        #expect(page?["total"] == 4)
        #expect(page?["limit"] == 2)
        #expect(page?["offset"] == 1)
        #expect(harness.get("/inspections?limit=500", token: token).data?["limit"] == 200)
        #expect(harness.get("/inspections?limit=abc", token: token).status == 400)
    }

    @Test("a submission is stored with the server's score and today, and a repeated local_id returns the same record")
    func createAndDedupe() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let body = submission(["local_id": "abc-1", "submit_latitude": 40.5, "submit_longitude": -73.25])
        let created = harness.request("POST", "/inspections", body, token: token)
        #expect(created.status == 201)
        let record = try #require(created.data)
        #expect(record["overall_score"] == .double(96.67))
        #expect(record["inspection_date"] == "2026-07-14")
        #expect(record["inspector_id"] == 7)
        #expect(record["submit_latitude"] == .double(40.5))
        #expect(record["form_data"] == Self.restroomAnswers)
        let media = harness.base + "/static/uploads/inspection_photos/seed-501-9.jpg"
        #expect(record["form_media"]?["9"] == .string(media))
        let id = try #require(record["id"]?.intValue)
        #expect(id > 3003)
        let again = harness.request("POST", "/inspections", body, token: token)
        #expect(again.status == 200)
        #expect(again.data?["id"] == .int(id))
        let state = harness.get("/__admin/state").data
        #expect(state?["inspections"]?.arrayValue?.filter { $0["local_id"] == "abc-1" }.count == 1)
        // The same local_id from another user is a different record.
        let other = harness.request(
            "POST", "/inspections", submission(["local_id": "abc-1"]),
            token: harness.token("dana"))
        #expect(other.status == 201)
        #expect(other.data?["id"] != .int(id))
    }

    @Test("local:// values, unknown templates and out-of-scope facilities are refused with 422")
    func refusals() throws {
        let harness = try Harness()
        let token = harness.token("sam")
        let local = harness.request(
            "POST", "/inspections",
            submission([
                "facility_id": 21, "area_id": 211, "form_data": ["9": "local://photo/1.jpg"],
            ]), token: token)
        #expect(local.status == 422)
        #expect(local.error?.contains("local://photo/1.jpg") == true)
        #expect(harness.request("POST", "/inspections", submission(["template_id": 99]), token: token).status == 422)
        #expect(harness.request("POST", "/inspections", submission(), token: token).status == 422)
        let state = harness.get("/__admin/state").data
        #expect(state?["inspections"]?.ids == [501, 502, 503, 504])
    }

    @Test("fulfilling a follow-up schedule inherits its parent, clears the flag and retires the schedule")
    func followUpScheduleFulfilment() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let created = harness.request(
            "POST", "/inspections", submission(["scheduled_inspection_id": 904]),
            token: token)
        #expect(created.status == 201)
        #expect(created.data?["parent_inspection_id"] == 501)
        #expect(created.data?["scheduled_inspection_id"] == 904)
        #expect(harness.get("/inspections/501", token: token).data?["follow_up_required"] == false)
        #expect(harness.get("/scheduled-inspections", token: token).data?.ids == [902, 901, 903])
        let path = "/inspections?follow_up_required=true&limit=200"
        #expect(harness.get(path, token: token).data?["inspections"]?.ids == [])
        let state = harness.get("/__admin/state").data
        #expect(state?["scheduled_inspections"]?.arrayValue?.first { $0["id"] == 904 }?["active"] == false)
    }

    @Test("recurring schedules advance their due date when fulfilled")
    func recurringFulfilment() throws {
        let harness = try Harness()
        let alex = harness.token("alex")
        harness.request("POST", "/inspections", submission(["scheduled_inspection_id": 901]), token: alex)
        let daily = harness.get("/scheduled-inspections", token: alex).data?.arrayValue?.first { $0["id"] == 901 }
        #expect(daily?["due_date"] == "2026-07-15")
        #expect(daily?["next_due_date"] == "2026-07-16")
        let dana = harness.token("dana")
        let monthly = harness.request(
            "POST", "/inspections",
            submission([
                "facility_id": 31, "area_id": 311, "template_id": 5, "form_data": ["201": "Pass"],
                "scheduled_inspection_id": 905,
            ]), token: dana)
        #expect(monthly.status == 201)
        let schedule = harness.get("/scheduled-inspections", token: dana).data?.arrayValue?.first { $0["id"] == 905 }
        #expect(schedule?["due_date"] == "2026-08-01")
        #expect(schedule?["is_overdue"] == false)
        let weekly = harness.request(
            "POST", "/inspections",
            submission([
                "facility_id": 12, "area_id": 121, "template_id": 5, "form_data": ["201": "Fail"],
                "scheduled_inspection_id": 903,
            ]), token: alex)
        #expect(weekly.data?["overall_score"] == .double(0.0))
        let after = harness.get("/scheduled-inspections", token: alex).data?.arrayValue?.first { $0["id"] == 903 }
        #expect(after?["due_date"] == "2026-07-27")
    }

    @Test("monthly schedules keep the day of month, clamped to the month's end")
    func monthlyClamp() throws {
        func next(_ text: String) throws -> String {
            DevServerRouter.advance(try #require(CalendarDay(text)), frequency: "monthly").text
        }
        #expect(try next("2026-01-31") == "2026-02-28")
        #expect(try next("2028-01-31") == "2028-02-29")
        #expect(try next("2026-12-15") == "2027-01-15")
        #expect(try next("2026-03-31") == "2026-04-30")
    }

    @Test("a re-inspection of a parent sent without a schedule fulfils the parent's one-time follow-up (ext)")
    func parentWithoutSchedule() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let created = harness.request("POST", "/inspections", submission(["parent_inspection_id": 501]), token: token)
        #expect(created.status == 201)
        #expect(created.data?["scheduled_inspection_id"] == .null)
        #expect(harness.get("/scheduled-inspections", token: token).data?.ids == [902, 901, 903])
    }

    @Test("PATCH replaces answers and recomputes the score; GPS is ignored")
    func patch() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let id = try #require(harness.request("POST", "/inspections", submission(), token: token).data?["id"]?.intValue)
        let patched = harness.request(
            "PATCH", "/inspections/\(id)",
            [
                "form_data": ["2": "5", "6": false], "submit_latitude": 1.0, "notes": "redo",
            ], token: token)
        #expect(patched.status == 200)
        #expect(patched.data?["overall_score"] == .double(33.33))
        #expect(patched.data?["submit_latitude"] == .null)
        #expect(patched.data?["notes"] == "redo")
        #expect(harness.request("PATCH", "/inspections/503", ["notes": "x"], token: token).status == 404)
    }

    @Test("follow-up scheduling creates one schedule per parent and re-dates it idempotently")
    func scheduleFollowUp() throws {
        let harness = try Harness()
        let token = harness.token("dana")
        let first = harness.request(
            "POST", "/scheduled-inspections/follow-up",
            [
                "parent_inspection_id": 502, "due_date": "2026-07-20", "notes": "Check again",
            ], token: token)
        #expect(first.status == 200)
        let id = try #require(first.data?["id"]?.intValue)
        #expect(first.data?["facility_id"] == 21)
        #expect(first.data?["template_id"] == 4)
        #expect(first.data?["inspector_id"] == 7)
        #expect(first.data?["frequency"] == "once")
        let second = harness.request(
            "POST", "/scheduled-inspections/follow-up",
            [
                "parent_inspection_id": 502, "due_date": "2026-07-22",
            ], token: token)
        #expect(second.data?["id"] == .int(id))
        #expect(second.data?["due_date"] == "2026-07-22")
        #expect(second.data?["notes"] == "Check again")
        let again = harness.request(
            "POST", "/scheduled-inspections/follow-up",
            [
                "parent_inspection_id": 501, "due_date": "2026-07-30",
            ], token: token)
        #expect(again.data?["id"] == 904)
        let bad = harness.request(
            "POST", "/scheduled-inspections/follow-up",
            [
                "parent_inspection_id": 502, "due_date": "2026-02-30",
            ], token: token)
        #expect(bad.status == 422)
        #expect(
            harness.request(
                "POST", "/scheduled-inspections/follow-up",
                [
                    "parent_inspection_id": 503, "due_date": "2026-07-30",
                ], token: harness.token("alex")
            ).status == 404)
    }
}

@Suite("Re-inspections across inspectors")
struct CrossInspectorTests {
    @Test("an inspector may re-inspect another inspector's flagged inspection in the same contract")
    func reinspectOthers() throws {
        let harness = try Harness()
        let token = harness.token("sam")
        let reply = harness.request(
            "POST", "/inspections",
            [
                "template_id": 4, "facility_id": 21, "status": "completed", "form_data": ["109": "true"],
                "parent_inspection_id": 502,
            ], token: token)
        #expect(reply.status == 201)
        #expect(reply.data?["parent_inspection_id"] == 502)
        #expect(reply.data?["overall_score"] == .double(50.0))  // checkbox 109 earned, radio 105 missing
        let outside = harness.request(
            "POST", "/inspections",
            [
                "template_id": 3, "facility_id": 21, "form_data": [:], "parent_inspection_id": 501,
            ], token: token)
        #expect(outside.status == 422)
    }
}
