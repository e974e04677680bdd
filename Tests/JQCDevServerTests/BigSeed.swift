import Foundation
import JQCKit

/// A seed the size real customers have (issue 17): by default 3,000 facilities in 10 contracts, 15,000
/// areas, 200 templates of 60 fields, and a history of inspections, issues, schedules and notifications
/// spread over the last two weeks. Deterministic: the same sizes give the same bytes.
///
/// Users (passwords as in the demo seed): `alex` (7, inspector, every contract), `sam` (8, inspector,
/// contracts 1–3), `sue` (3, supervisor, contracts 1–5), `dana` (2, admin, every contract).
struct BigSeed {
    var facilities = 3_000
    var areasPerFacility = 5
    var templates = 200
    var fieldsPerTemplate = 60
    var inspections = 3_000
    var issues = 1_000
    var schedules = 300
    var notifications = 200
    var today = "2026-07-14"

    /// The seed as JSON (the shape of `Resources/seed.json`).
    var json: JSONValue {
        let projects = 10
        let inspectorIDs: [Int64] = [7, 8]
        let users: [JSONValue] = [
            user(7, "alex", "inspector", "Alex Rivera", projects: Array(1...projects)),
            user(8, "sam", "inspector", "", projects: [1, 2, 3]),
            user(3, "sue", "supervisor", "Sue Park", projects: [1, 2, 3, 4, 5]),
            user(2, "dana", "admin", "Dana Okafor", projects: Array(1...projects)),
        ]
        let projectList: [JSONValue] = (1...projects).map {
            .object(["id": .int(Int64($0)), "name": .string("Contract \($0)")])
        }
        let facilityIDs = (0..<facilities).map { Int64(10_000 + $0) }
        let facilityList: [JSONValue] = facilityIDs.enumerated().map { index, id in
            .object([
                "id": .int(id), "name": .string("Facility \(id)"), "address": .string("\(index + 1) Long Road"),
                "project_id": .int(Int64(index % projects + 1)), "is_active": .bool(index % 97 != 0),
            ])
        }
        var areaList: [JSONValue] = []
        areaList.reserveCapacity(facilities * areasPerFacility)
        for facility in facilityIDs {
            for slot in 0..<areasPerFacility {
                areaList.append(
                    .object([
                        "id": .int(100_000 + (facility - 10_000) * Int64(areasPerFacility) + Int64(slot)),
                        "facility_id": .int(facility), "name": .string("Area \(slot) of \(facility)"),
                        "area_type": .string(["restroom", "lobby", "office", "gym", "clinical"][slot % 5]),
                    ]))
            }
        }
        let templateIDs = (0..<templates).map { Int64(1_000 + $0) }
        let templateList: [JSONValue] = templateIDs.enumerated().map { index, id in
            .object([
                "id": .int(id), "name": .string("Template \(id)"), "description": .string("Checklist \(index)"),
                "is_active": .bool(index % 23 != 5), "form_schema": .array(schema()),
            ])
        }
        guard let todayDay = CalendarDay(today) else { return .null }
        var inspectionList: [JSONValue] = []
        for index in 0..<inspections {
            let id = Int64(200_000 + index)
            let facility = facilityIDs[(index * 7) % facilityIDs.count]
            let followUp = index % 11 == 0
            // Every 33rd inspection re-inspects the one 11 before it (some flagged ones get their child).
            let parent: JSONValue = index % 33 == 32 ? .int(id - 11) : .null
            var doc: [String: JSONValue] = [
                "id": .int(id), "local_id": .string("seed-local-\(index)"),
                "template_id": .int(templateIDs[index % templateIDs.count]), "facility_id": .int(facility),
                "area_id": .int(100_000 + (facility - 10_000) * Int64(areasPerFacility)),
                "inspector_id": .int(inspectorIDs[index % 2]),
                "status": .string(index % 17 == 3 ? "draft" : "completed"),
                "inspection_date": .string(todayDay.adding(days: -(index % 14)).text),
                "started_at": .string(todayDay.adding(days: -(index % 14)).text + "T08:00:00-04:00"),
                "completed_at": .string(todayDay.adding(days: -(index % 14)).text + "T08:30:00-04:00"),
                "follow_up_required": .bool(followUp), "follow_up_note": followUp ? "Check again" : .null,
                "parent_inspection_id": parent, "scheduled_inspection_id": .null, "form_data": .object(answers(index)),
            ]
            if index % 5 == 1 { doc["overall_score"] = .double(Double(index % 100) + 0.25) }
            if index % 29 == 4 { doc["overall_score"] = .null }
            inspectionList.append(.object(doc))
        }
        let issueList: [JSONValue] = (0..<issues).map { index in
            let facility = facilityIDs[(index * 13) % facilityIDs.count]
            return .object([
                "id": .int(Int64(300_000 + index)), "local_id": index % 2 == 0 ? .string("seed-issue-\(index)") : .null,
                "inspection_id": .int(Int64(200_000 + index % max(1, inspections))), "facility_id": .int(facility),
                "area_id": .null, "severity": .string(["low", "medium", "high", "critical"][index % 4]),
                "description": .string("Issue \(index)"),
                "status": .string(["open", "in_progress", "resolved"][index % 3]), "photo_path": .null,
                "mobile_photo_paths": .array([]), "result_photos": .array([]),
                "reported_by_id": .int(inspectorIDs[index % 2]), "assigned_to_id": index % 3 == 0 ? .int(3) : .null,
                "handler_type": .null,
                "created_at": .string(todayDay.adding(days: -(index % 20)).text + "T09:00:00-04:00"),
            ])
        }
        let frequencies = ["once", "daily", "weekly", "monthly"]
        let scheduleList: [JSONValue] = (0..<schedules).map { index in
            .object([
                "id": .int(Int64(400_000 + index)), "facility_id": .int(facilityIDs[(index * 3) % facilityIDs.count]),
                "template_id": .int(templateIDs[index % templateIDs.count]),
                "inspector_id": index % 4 == 0 ? .null : .int(inspectorIDs[index % 2]),
                "frequency": .string(frequencies[index % 4]),
                "due_date": .string(todayDay.adding(days: index % 9 - 4).text), "notes": .string("Schedule \(index)"),
                "parent_inspection_id": .null, "active": .bool(index % 10 != 7),
            ])
        }
        let notificationList: [JSONValue] = (0..<notifications).map { index in
            .object([
                "id": .int(Int64(500_000 + index)), "user_id": .int(inspectorIDs[index % 2]),
                "title": .string("Notice \(index)"), "body": .string("Body \(index)"), "link": .null,
                "event_type": "notice",
                "created_at": .string(todayDay.adding(days: -(index % 5)).text + "T10:00:00-04:00"),
                "read": .bool(index % 3 == 0),
            ])
        }
        return .object([
            "today": .string(today), "timezone": "America/New_York", "users": .array(users),
            "projects": .array(projectList), "facilities": .array(facilityList),
            "duplicate_facility_ids_in_reply": .array([.int(facilityIDs[1])]), "areas": .array(areaList),
            "templates": .array(templateList), "inspections": .array(inspectionList), "issues": .array(issueList),
            "scheduled_inspections": .array(scheduleList), "notifications": .array(notificationList),
        ])
    }

    /// Writes the seed to `url`.
    func write(to url: URL) throws {
        try json.jsonData().write(to: url)
    }

    private func user(_ id: Int64, _ name: String, _ role: String, _ fullName: String, projects: [Int]) -> JSONValue {
        .object([
            "id": .int(id), "username": .string(name),
            "password": .string(name == "dana" ? "admin-demo" : "inspect-demo"),
            "role": .string(role), "full_name": .string(fullName), "email": .string("\(name)@example.com"),
            "project_ids": .array(projects.map { .int(Int64($0)) }),
        ])
    }

    /// 60 fields (by default): a section, then ratings, pass/fail, checkboxes, radios and text in turn.
    private func schema() -> [JSONValue] {
        let types = ["rating", "pass_fail", "checkbox", "radio", "text"]
        return (1...fieldsPerTemplate).map { id in
            let type = id == 1 ? "section" : types[id % types.count]
            var field: [String: JSONValue] = [
                "id": .int(Int64(id)), "type": .string(type), "label": .string("Field \(id)"),
                "row": .int(Int64(id)), "col": 1, "colSpan": 12, "rowSpan": 1,
            ]
            if type == "radio" { field["options"] = .array(["Good", "Poor"]) }
            return .object(field)
        }
    }

    private func answers(_ index: Int) -> [String: JSONValue] {
        var answers: [String: JSONValue] = [:]
        for id in 2...max(2, fieldsPerTemplate) where (id + index) % 3 != 0 {
            switch id % 5 {
            case 0: answers[String(id)] = .string("Rating \(index % 5 + 1)")  // text
            case 1: answers[String(id)] = .int(Int64((id + index) % 5 + 1))  // rating
            case 2: answers[String(id)] = .string((id + index) % 4 == 0 ? "Fail" : "Pass")
            case 3: answers[String(id)] = .bool((id + index) % 2 == 0)
            default: answers[String(id)] = .string((id + index) % 3 == 0 ? "Poor" : "Good")
            }
        }
        return answers
    }
}
