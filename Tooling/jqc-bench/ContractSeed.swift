import Foundation
import JQCKit

/// A dev-server seed of one contract at the scale issue 17 names: N facilities, 5N areas and 200 templates of 60
/// fields (a section, then ratings, pass/fail, checkboxes, radios and texts in turn), and the demo users (`alex` /
/// `inspect-demo`, inspector of the contract). No inspections, issues, schedules or notifications, so the
/// no-change sync pass measures the reference lists. Deterministic: the same sizes give the same bytes.
///
/// `jqc-bench contract-seed N OUT` writes it; `jqc-devserver --seed OUT` loads it into an empty data directory.
struct ContractSeed {
    var facilities: Int
    var areasPerFacility = 5
    var templates = 200
    var fieldsPerTemplate = 60

    /// The seed as JSON (the shape of Tooling/JQCDevServer/Resources/seed.json).
    var json: JSONValue {
        let users: [JSONValue] = [
            user(7, "alex", "inspector", "Alex Rivera"), user(2, "dana", "admin", "Dana Okafor"),
        ]
        var facilityList: [JSONValue] = []
        var areaList: [JSONValue] = []
        facilityList.reserveCapacity(facilities)
        areaList.reserveCapacity(facilities * areasPerFacility)
        for index in 0..<facilities {
            let id = Int64(10_000 + index)
            facilityList.append(
                .object([
                    "id": .int(id), "name": .string("Facility \(id)"), "address": .string("\(index + 1) Long Road"),
                    "project_id": 1, "is_active": .bool(index % 97 != 1),
                ]))
            for slot in 0..<areasPerFacility {
                areaList.append(
                    .object([
                        "id": .int(100_000 + Int64(index * areasPerFacility + slot)), "facility_id": .int(id),
                        "name": .string("Area \(slot) of \(id)"),
                        "area_type": .string(["restroom", "lobby", "office", "gym", "clinical"][slot % 5]),
                    ]))
            }
        }
        let templateList: [JSONValue] = (0..<templates).map { index in
            .object([
                "id": .int(Int64(1_000 + index)), "name": .string("Template \(1_000 + index)"),
                "description": .string("Checklist \(index)"), "is_active": .bool(index % 23 != 5),
                "form_schema": .array(schema()),
            ])
        }
        return .object([
            "today": "2026-07-14", "timezone": "America/New_York", "users": .array(users),
            "projects": [.object(["id": 1, "name": .string("Contract of \(facilities) facilities")])],
            "facilities": .array(facilityList), "areas": .array(areaList), "templates": .array(templateList),
        ])
    }

    /// Writes the seed to `url`.
    /// - Throws: the file system's error.
    func write(to url: URL) throws {
        try json.jsonData().write(to: url)
    }

    /// `contract-seed N OUT`.
    /// - Throws: ``BenchError`` (usage) or the file system's error.
    static func run(_ arguments: [String]) throws {
        guard arguments.count == 2, let count = Int(arguments[0]), count > 0 else {
            throw BenchError("usage", "usage: jqc-bench contract-seed FACILITIES OUT.json")
        }
        try ContractSeed(facilities: count).write(to: URL(fileURLWithPath: arguments[1]))
    }

    private func schema() -> [JSONValue] {
        let types = ["rating", "pass_fail", "checkbox", "radio", "text"]
        return (1...fieldsPerTemplate).map { id in
            let type = id == 1 ? "section" : types[id % types.count]
            var field: [String: JSONValue] = [
                "id": .int(Int64(id)), "type": .string(type), "label": .string("Field \(id)"),
                "row": .int(Int64(id)), "col": 1, "colSpan": 12, "rowSpan": 1,
            ]
            if type == "radio" { field["options"] = ["Good", "Poor"] }
            if type == "rating" { field["required"] = .bool(id % 4 == 0) }
            return .object(field)
        }
    }

    private func user(_ id: Int64, _ name: String, _ role: String, _ fullName: String) -> JSONValue {
        .object([
            "id": .int(id), "username": .string(name),
            "password": .string(name == "dana" ? "admin-demo" : "inspect-demo"),
            "role": .string(role), "full_name": .string(fullName), "email": .string("\(name)@example.com"),
            "project_ids": [1],
        ])
    }
}
