import Foundation
import JQCKit
import JQCStorage

extension DevServerRouter {
    // MARK: Reference data

    /// Active facilities of the user's contracts; seed-listed duplicates repeated (rule 45 quirk).
    func facilities(_ user: AuthUser) -> JSONValue {
        var out: [JSONValue] = []
        for facility in reference.facilities
        where facility.bool("is_active")
            && user.projectIDs.contains(facility.int("project_id") ?? -1)
        {
            let json: JSONValue = .object([
                "id": facility["id"] ?? .null, "name": facility["name"] ?? .null,
                "address": facility["address"] ?? .null, "project_id": facility["project_id"] ?? .null,
                "project_name": reference.projectName(facility.int("project_id")).map(JSONValue.string) ?? .null,
                "is_active": .bool(true),
            ])
            out.append(json)
            if reference.duplicateFacilityIDs.contains(facility.int("id") ?? -1) { out.append(json) }
        }
        return .array(out)
    }

    /// Areas of the active facilities in scope, optionally of one facility (`?facility_id=`).
    func areas(_ user: AuthUser, _ context: RouteContext) throws -> JSONValue {
        let active = Set(
            reference.facilities.filter {
                $0.bool("is_active") && user.projectIDs.contains($0.int("project_id") ?? -1)
            }.compactMap { $0.int("id") })
        var only: Int64?
        if let text = context.request.query["facility_id"] {
            guard let value = Int64(text) else { throw refuse(400, "facility_id must be an integer.") }
            only = value
        }
        return .array(
            reference.areas.filter { area in
                let facility = area.int("facility_id") ?? -1
                return active.contains(facility) && (only == nil || only == facility)
            }.map { area in
                .object([
                    "id": area["id"] ?? .null, "facility_id": area["facility_id"] ?? .null,
                    "name": area["name"] ?? .null, "area_type": area["area_type"] ?? .null,
                ])
            })
    }

    /// Active templates only (rule 56).
    func templates() -> JSONValue {
        .array(
            reference.templates.filter { $0.bool("is_active") }.map { template in
                .object([
                    "id": template["id"] ?? .null, "name": template["name"] ?? .null,
                    "description": template["description"] ?? .null, "is_active": .bool(true),
                    "form_schema": template["form_schema"] ?? .array([]),
                ])
            })
    }

    // MARK: Inspections

    /// The contract's `inspection` payload for a stored record.
    func inspectionJSON(_ doc: Doc, baseURL: String) -> JSONValue {
        let template = reference.template(doc.int("template_id"))
        let formData = doc["form_data"]?.objectValue ?? [:]
        var media: [String: JSONValue] = [:]
        let mediaTypes: Set<String> = ["image", "signature", "photo"]
        var mediaIDs = Set<String>()
        for field in template?["form_schema"]?.arrayValue ?? [] {
            if let type = field["type"]?.stringValue, mediaTypes.contains(type),
                let id = FieldID.normalize(field["id"])
            {
                mediaIDs.insert(id)
            }
        }
        for (key, value) in formData where mediaIDs.contains(key) {
            if let path = value.stringValue, !path.isEmpty,
                path.hasPrefix("uploads/") || path.hasPrefix("http://") || path.hasPrefix("https://")
            {
                media[key] = .string(path.hasPrefix("uploads/") ? baseURL + "/static/" + path : path)
            }
        }
        func pass(_ key: String) -> JSONValue { doc[key] ?? .null }
        return .object([
            "id": pass("id"), "local_id": pass("local_id"), "template_id": pass("template_id"),
            "template_name": template?["name"] ?? .null, "facility_id": pass("facility_id"),
            "facility_name": reference.facility(doc.int("facility_id"))?["name"] ?? .null,
            "area_id": pass("area_id"), "area_name": reference.area(doc.int("area_id"))?["name"] ?? .null,
            "inspector_id": pass("inspector_id"), "inspector_name": reference.displayName(doc.int("inspector_id")),
            "status": pass("status"), "inspection_date": pass("inspection_date"), "started_at": pass("started_at"),
            "completed_at": pass("completed_at"), "overall_score": overallScore(doc),
            "follow_up_required": .bool(doc.bool("follow_up_required")), "follow_up_note": pass("follow_up_note"),
            "parent_inspection_id": pass("parent_inspection_id"),
            "scheduled_inspection_id": pass("scheduled_inspection_id"),
            "submit_latitude": pass("submit_latitude"), "submit_longitude": pass("submit_longitude"),
            "notes": pass("notes"), "form_data": .object(formData), "form_media": .object(media),
            "created_at": pass("created_at"),
        ])
    }

    /// The stored score, or the recomputed one for seed records that carry none.
    func overallScore(_ doc: Doc) -> JSONValue {
        if let stored = doc["overall_score"] { return stored }
        let schema = reference.template(doc.int("template_id"))?["form_schema"] ?? .array([])
        return ServerScoring.score(schema: schema, formData: doc["form_data"]?.objectValue ?? [:])
            .map(JSONValue.double) ?? .null
    }

    /// SQL true for a record that is an outstanding follow-up: flagged AND completed AND no child
    /// inspection (rule 78), the child found through `records_by_parent_inspection_id`.
    static let outstandingFollowUpSQL = """
        json_type(records.doc, '$.follow_up_required') = 'true' AND records.status = '"completed"'
        AND NOT EXISTS (SELECT 1 FROM records AS child
                        WHERE child.kind = 'inspection' AND child.parent_inspection_id = records.id)
        """

    /// The SQL condition (and its arguments) for the inspections `user` can see: their own for an
    /// inspector, else every inspection at a facility of their contracts.
    func visibleInspectionsSQL(_ user: AuthUser) -> (sql: String, arguments: StatementArguments) {
        if user.isInspector { return ("records.inspector_id = ?", [user.id]) }
        let scope = JSONValue.array(user.facilityScope.sorted().map(JSONValue.int)).jsonString()
        return ("records.facility_id IN (SELECT value FROM json_each(?))", [scope])
    }

    func listInspections(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        let query = context.request.query
        var limit = 30, offset = 0
        if let text = query["limit"] {
            guard let value = Int(text), value >= 0 else { throw refuse(400, "limit must be a whole number.") }
            limit = min(value, 200)
        }
        if let text = query["offset"] {
            guard let value = Int(text), value >= 0 else { throw refuse(400, "offset must be a whole number.") }
            offset = value
        }
        let followUps = query["follow_up_required"].map { ["true", "1"].contains($0.lowercased()) } ?? false
        let visible = visibleInspectionsSQL(user)
        var conditions = ["records.kind = 'inspection'", visible.sql]
        var arguments = visible.arguments
        if let status = query["status"], !status.isEmpty {
            conditions.append("records.status = ?")
            arguments.append(JSONValue.string(status))
        }
        if followUps { conditions.append(Self.outstandingFollowUpSQL) }
        let filter = conditions.joined(separator: " AND ")
        let (total, page): (Int64, [Doc]) = try store.queue.read { db in
            let total: Int64 = try db.scalar("SELECT count(*) FROM records WHERE \(filter)", arguments) ?? 0
            let rows = try db.fetchAll(
                """
                SELECT doc FROM records WHERE \(filter)
                ORDER BY coalesce(records.inspection_date, '') DESC, records.id DESC LIMIT ? OFFSET ?
                """, arguments + [Int64(limit), Int64(offset)])
            return (total, rows.compactMap { ($0["doc"] as JSONValue?)?.objectValue })
        }
        return Envelope.success(
            .object([
                "inspections": .array(page.map { inspectionJSON($0, baseURL: context.baseURL) }),
                "total": .int(total), "limit": .int(Int64(limit)), "offset": .int(Int64(offset)),
            ]))
    }

    func showInspection(_ user: AuthUser, _ context: RouteContext, _ id: Int64) throws -> HTTPResponse {
        guard let doc = try store.queue.read({ try store.get($0, .inspection, id) }), canSee(inspection: doc, user)
        else { throw refuse(404, "There is no inspection \(id) you can see.") }
        return Envelope.success(inspectionJSON(doc, baseURL: context.baseURL))
    }

    /// POST /inspections with every server rule of CONTRACT.md, in one transaction.
    func createInspection(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        let body = try context.body()
        let localID = try Fields.string(body, "local_id")
        let templateID = try Fields.int(body, "template_id", required: true)!
        let facilityID = try Fields.int(body, "facility_id", required: true)!
        let areaID = try Fields.int(body, "area_id")
        let status = try Fields.string(body, "status") ?? "completed"
        var parentID = try Fields.int(body, "parent_inspection_id")
        let scheduleID = try Fields.int(body, "scheduled_inspection_id")
        let latitude = try Fields.double(body, "submit_latitude")
        let longitude = try Fields.double(body, "submit_longitude")
        let notes = try Fields.string(body, "notes")
        let startedAt = try Fields.string(body, "started_at")
        let completedAt = try Fields.string(body, "completed_at")
        let followUpRequired = try Fields.bool(body, "follow_up_required") ?? false
        let followUpNote = try Fields.string(body, "follow_up_note")
        _ = try Fields.double(body, "overall_score")
        guard let formData = (body["form_data"] ?? .object([:])).objectValue else {
            throw refuse(400, "The field form_data must be an object of field id → answer.")
        }
        try rejectLocalReferences(.object(formData), field: "form_data")
        guard ["completed", "in_progress", "draft"].contains(status) else {
            throw refuse(422, "The status \(status) is not one of completed, in_progress.")
        }
        guard let template = reference.template(templateID) else {
            throw refuse(422, "There is no template \(templateID).")
        }
        guard facilityIDsInScope(user).contains(facilityID) else {
            throw refuse(422, "The facility \(facilityID) is not in your contracts.")
        }
        if let areaID, reference.area(areaID)?.int("facility_id") != facilityID {
            throw refuse(422, "The area \(areaID) is not part of facility \(facilityID).")
        }
        let score = ServerScoring.score(schema: template["form_schema"] ?? .array([]), formData: formData)
        let result: (doc: Doc, created: Bool) = try store.queue.write { db in
            if let localID, !localID.isEmpty,
                let existing = try store.existing(
                    db, .inspection, localID: localID, owner: .inspectorID, ownerID: user.id)
            {
                try store.increment(db, "duplicates.inspections")
                return (existing, false)
            }
            var schedule: Doc?
            if let scheduleID {
                guard let found = try store.get(db, .schedule, scheduleID),
                    found.int("inspector_id") == nil || found.int("inspector_id") == user.id
                        || !user.isInspector,
                    facilityIDsInScope(user).contains(found.int("facility_id") ?? -1)
                else { throw refuse(422, "There is no scheduled inspection \(scheduleID) for you.") }
                schedule = found
                if parentID == nil, let inherited = found.int("parent_inspection_id") { parentID = inherited }
            }
            if let parentID {
                guard var parent = try store.get(db, .inspection, parentID), inScope(parent, user)
                else { throw refuse(422, "There is no inspection \(parentID) to re-inspect.") }
                parent["follow_up_required"] = .bool(false)
                try store.put(db, .inspection, parent)
            }
            if var schedule, schedule.bool("active") {
                try fulfil(&schedule)
                try store.put(db, .schedule, schedule)
            } else if scheduleID == nil, let parentID {
                // (ext) a re-inspection of a parent fulfils that parent's active one-time follow-up.
                for var pending in try store.all(db, .schedule, where: .parentInspectionID, is: parentID)
                where pending.bool("active") && pending.string("frequency") == "once" {
                    try fulfil(&pending)
                    try store.put(db, .schedule, pending)
                }
            }
            let id = try store.nextID(db)
            var doc: Doc = [
                "id": .int(id), "local_id": localID.map(JSONValue.string) ?? .null, "template_id": .int(templateID),
                "facility_id": .int(facilityID), "area_id": areaID.map(JSONValue.int) ?? .null,
                "inspector_id": .int(user.id), "status": .string(status),
                "inspection_date": .string(serverToday.text),
                "started_at": startedAt.map(JSONValue.string) ?? .null,
                "completed_at": completedAt.map(JSONValue.string) ?? .null,
                "overall_score": score.map(JSONValue.double) ?? .null,
                "follow_up_required": .bool(followUpRequired),
                "follow_up_note": followUpNote.map(JSONValue.string) ?? .null,
                "parent_inspection_id": parentID.map(JSONValue.int) ?? .null,
                "scheduled_inspection_id": scheduleID.map(JSONValue.int) ?? .null,
                "submit_latitude": latitude.map(JSONValue.double) ?? .null,
                "submit_longitude": longitude.map(JSONValue.double) ?? .null,
                "notes": notes.map(JSONValue.string) ?? .null, "form_data": .object(formData),
                "created_at": .string(DateFormats.instantString(now)),
            ]
            doc["updated_at"] = doc["created_at"]
            try store.put(db, .inspection, doc)
            return (doc, true)
        }
        let replyStatus = result.created ? 201 : 200
        return Envelope.success(inspectionJSON(result.doc, baseURL: context.baseURL), status: replyStatus)
    }

    /// Fulfils a schedule: one-time → inactive; recurring → `due_date` advances one occurrence.
    func fulfil(_ schedule: inout Doc) throws {
        let frequency = schedule.string("frequency") ?? "once"
        guard frequency != "once", let due = schedule.string("due_date").flatMap(CalendarDay.init) else {
            schedule["active"] = .bool(false)
            return
        }
        schedule["due_date"] = .string(Self.advance(due, frequency: frequency).text)
    }

    /// The occurrence after `day`: daily +1, weekly +7, monthly same day next month clamped to its end.
    static func advance(_ day: CalendarDay, frequency: String) -> CalendarDay {
        switch frequency {
        case "daily": return day.adding(days: 1)
        case "weekly": return day.adding(days: 7)
        case "monthly":
            let parts = day.text.split(separator: "-").compactMap { Int($0) }
            var year = parts[0], month = parts[1] + 1
            if month > 12 { month = 1; year += 1 }
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            let dayOfMonth = min(parts[2], lengths[month - 1])
            let text = String(format: "%04d-%02d-%02d", year, month, dayOfMonth)
            return CalendarDay(text) ?? day
        default: return day
        }
    }

    /// PATCH /inspections/<id>: the same body minus GPS (creation-time only).
    func updateInspection(_ user: AuthUser, _ context: RouteContext, _ id: Int64) throws -> HTTPResponse {
        let body = try context.body()
        let areaID = try Fields.int(body, "area_id")
        let status = try Fields.string(body, "status")
        let notes = try Fields.string(body, "notes")
        let startedAt = try Fields.string(body, "started_at")
        let completedAt = try Fields.string(body, "completed_at")
        let followUp = try Fields.bool(body, "follow_up_required")
        let followUpNote = try Fields.string(body, "follow_up_note")
        var formData: [String: JSONValue]?
        if let value = body["form_data"], value != .null {
            guard let object = value.objectValue else {
                throw refuse(400, "The field form_data must be an object of field id → answer.")
            }
            try rejectLocalReferences(value, field: "form_data")
            formData = object
        }
        let doc: Doc = try store.queue.write { db in
            guard var doc = try store.get(db, .inspection, id), canSee(inspection: doc, user) else {
                throw refuse(404, "There is no inspection \(id) you can see.")
            }
            if let areaID {
                guard reference.area(areaID)?.int("facility_id") == doc.int("facility_id") else {
                    throw refuse(422, "The area \(areaID) is not part of this inspection's facility.")
                }
                doc["area_id"] = .int(areaID)
            }
            if let status {
                guard ["completed", "in_progress", "draft"].contains(status) else {
                    throw refuse(422, "The status \(status) is not one of completed, in_progress.")
                }
                doc["status"] = .string(status)
            }
            if let notes { doc["notes"] = .string(notes) }
            if let startedAt { doc["started_at"] = .string(startedAt) }
            if let completedAt { doc["completed_at"] = .string(completedAt) }
            if let followUp { doc["follow_up_required"] = .bool(followUp) }
            if let followUpNote { doc["follow_up_note"] = .string(followUpNote) }
            if let formData {
                doc["form_data"] = .object(formData)
                let schema = reference.template(doc.int("template_id"))?["form_schema"] ?? .array([])
                doc["overall_score"] =
                    ServerScoring.score(schema: schema, formData: formData).map(JSONValue.double)
                    ?? .null
            }
            doc["updated_at"] = .string(DateFormats.instantString(now))
            try store.put(db, .inspection, doc)
            return doc
        }
        return Envelope.success(inspectionJSON(doc, baseURL: context.baseURL))
    }
}
