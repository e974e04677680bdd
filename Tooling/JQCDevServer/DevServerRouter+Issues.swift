import Foundation
import JQCKit
import JQCStorage

extension DevServerRouter {
    static let severities: Set<String> = ["low", "medium", "high", "critical"]
    static let issueStatuses: Set<String> = ["open", "in_progress", "resolved"]
    static let handlerTypes: Set<String> = ["internal", "facility", "vendor"]

    /// The contract's `issue` payload for a stored record.
    func issueJSON(_ doc: Doc, context: RouteContext) -> JSONValue {
        func pass(_ key: String) -> JSONValue { doc[key] ?? .null }
        let photo = doc.string("photo_path")
        let mobile = (doc["mobile_photo_paths"]?.arrayValue ?? []).compactMap(\.stringValue)
        let results = (doc["result_photos"]?.arrayValue ?? []).compactMap(\.stringValue)
        let evidence = (photo.map { [$0] } ?? []) + mobile
        return .object([
            "id": pass("id"), "local_id": pass("local_id"), "inspection_id": pass("inspection_id"),
            "facility_id": pass("facility_id"),
            "facility_name": reference.facility(doc.int("facility_id"))?["name"] ?? .null,
            "area_id": pass("area_id"), "area_name": reference.area(doc.int("area_id"))?["name"] ?? .null,
            "severity": pass("severity"), "description": pass("description"), "status": pass("status"),
            "photo_path": pass("photo_path"), "mobile_photo_paths": .array(mobile.map(JSONValue.string)),
            "result_photos": .array(results.map(JSONValue.string)),
            "photo_urls": .array(evidence.map { .string(context.url($0)) }),
            "result_photo_urls": .array(results.map { .string(context.url($0)) }),
            "result_notes": pass("result_notes"), "verified_at": pass("verified_at"),
            "verification_note": pass("verification_note"),
            "reported_by_name": reference.displayName(doc.int("reported_by_id")),
            "assigned_to_name": reference.displayName(doc.int("assigned_to_id")),
            "handler_type": pass("handler_type"), "handler_label": handlerLabel(doc),
            "facility_handler_name": pass("facility_handler_name"),
            "facility_handler_contact": pass("facility_handler_contact"),
            "facility_handler_notes": pass("facility_handler_notes"), "vendor_name": pass("vendor_name"),
            "vendor_contact": pass("vendor_contact"), "vendor_notes": pass("vendor_notes"),
            "created_at": pass("created_at"), "updated_at": doc["updated_at"] ?? pass("created_at"),
        ])
    }

    /// "Internal team", "Facility: <name>" or "Vendor: <name>" (the bare kind when no name), or null.
    func handlerLabel(_ doc: Doc) -> JSONValue {
        func named(_ kind: String, _ key: String) -> JSONValue {
            let name = (doc.string(key) ?? "").trimmingCharacters(in: .whitespaces)
            return .string(name.isEmpty ? kind : "\(kind): \(name)")
        }
        switch doc.string("handler_type") {
        case "internal": return "Internal team"
        case "facility": return named("Facility", "facility_handler_name")
        case "vendor": return named("Vendor", "vendor_name")
        default: return .null
        }
    }

    func listIssues(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        let mine = try store.queue.read { db in try store.visibleIssues(db, userID: user.id, newestFirst: true) }
        return Envelope.success(.array(mine.map { issueJSON($0, context: context) }))
    }

    func visibleIssue(_ db: Database, _ user: AuthUser, _ id: Int64) throws -> Doc {
        guard let doc = try store.get(db, .issue, id), canSee(issue: doc, user) else {
            throw refuse(404, "There is no issue \(id) you can see.")
        }
        return doc
    }

    func showIssue(_ user: AuthUser, _ context: RouteContext, _ id: Int64) throws -> HTTPResponse {
        let doc = try store.queue.read { try visibleIssue($0, user, id) }
        return Envelope.success(issueJSON(doc, context: context))
    }

    func createIssue(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        let body = try context.body()
        let localID = try Fields.string(body, "local_id")
        let inspectionID = try Fields.int(body, "inspection_id")
        let facilityID = try Fields.int(body, "facility_id", required: true)!
        let areaID = try Fields.int(body, "area_id")
        let severity = try Fields.string(body, "severity", required: true)!
        let description = try Fields.string(body, "description", required: true)!
        let photoPath = try Fields.string(body, "photo_path")
        let mobile = try Fields.stringArray(body, "mobile_photo_paths") ?? []
        try rejectLocalReferences(
            .array(([photoPath].compactMap { $0 } + mobile).map(JSONValue.string)),
            field: "photo_path")
        guard Self.severities.contains(severity) else {
            throw refuse(422, "The severity \(severity) is not one of low, medium, high, critical.")
        }
        guard !description.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw refuse(422, "The issue needs a description.")
        }
        guard facilityIDsInScope(user).contains(facilityID) else {
            throw refuse(422, "The facility \(facilityID) is not in your contracts.")
        }
        if let areaID, reference.area(areaID)?.int("facility_id") != facilityID {
            throw refuse(422, "The area \(areaID) is not part of facility \(facilityID).")
        }
        let result: (doc: Doc, created: Bool) = try store.queue.write { db in
            if let localID, !localID.isEmpty,
                let existing = try store.existing(
                    db, .issue, localID: localID, owner: .reportedByID, ownerID: user.id)
            {
                try store.increment(db, "duplicates.issues")
                return (existing, false)
            }
            if let inspectionID {
                guard let inspection = try store.get(db, .inspection, inspectionID),
                    inScope(inspection, user)
                else { throw refuse(422, "There is no inspection \(inspectionID) to attach the issue to.") }
            }
            let stamp = JSONValue.string(DateFormats.instantString(now))
            let doc: Doc = [
                "id": .int(try store.nextID(db)), "local_id": localID.map(JSONValue.string) ?? .null,
                "inspection_id": inspectionID.map(JSONValue.int) ?? .null, "facility_id": .int(facilityID),
                "area_id": areaID.map(JSONValue.int) ?? .null, "severity": .string(severity),
                "description": .string(description), "status": "open",
                "photo_path": photoPath.map(JSONValue.string) ?? .null,
                "mobile_photo_paths": .array(mobile.map(JSONValue.string)), "result_photos": .array([]),
                "reported_by_id": .int(user.id), "assigned_to_id": .null, "handler_type": .null,
                "created_at": stamp, "updated_at": stamp,
            ]
            try store.put(db, .issue, doc)
            return (doc, true)
        }
        return Envelope.success(issueJSON(result.doc, context: context), status: result.created ? 201 : 200)
    }

    private func updateIssue(
        _ user: AuthUser, _ context: RouteContext, _ id: Int64,
        _ change: (inout Doc) throws -> Void
    ) throws -> HTTPResponse {
        let doc: Doc = try store.queue.write { db in
            var doc = try visibleIssue(db, user, id)
            try change(&doc)
            doc["updated_at"] = .string(DateFormats.instantString(now))
            try store.put(db, .issue, doc)
            return doc
        }
        return Envelope.success(issueJSON(doc, context: context))
    }

    /// PATCH /issues/<id>/photos: `result_photos` replaces `mobile_photo_paths` (a retry cannot duplicate).
    func updateIssuePhotos(_ user: AuthUser, _ context: RouteContext, _ id: Int64) throws -> HTTPResponse {
        let body = try context.body()
        // `mobile_photo_paths` is accepted as a synonym so a client naming the stored field is not refused.
        let synonym = try Fields.stringArray(body, "mobile_photo_paths")
        guard let paths = try Fields.stringArray(body, "result_photos") ?? synonym else {
            throw refuse(400, "The field result_photos is required and must be an array of paths.")
        }
        try rejectLocalReferences(.array(paths.map(JSONValue.string)), field: "result_photos")
        return try updateIssue(user, context, id) { $0["mobile_photo_paths"] = .array(paths.map(JSONValue.string)) }
    }

    func updateIssueStatus(_ user: AuthUser, _ context: RouteContext, _ id: Int64) throws -> HTTPResponse {
        let body = try context.body()
        let status = try Fields.string(body, "status", required: true)!
        guard Self.issueStatuses.contains(status) else {
            throw refuse(422, "The status \(status) is not one of open, in_progress, resolved.")
        }
        return try updateIssue(user, context, id) { $0["status"] = .string(status) }
    }

    func updateIssueHandler(_ user: AuthUser, _ context: RouteContext, _ id: Int64) throws -> HTTPResponse {
        let body = try context.body()
        let type = try Fields.string(body, "handler_type", required: true)!
        guard Self.handlerTypes.contains(type) else {
            throw refuse(422, "The handler type \(type) is not one of internal, facility, vendor.")
        }
        let keys = [
            "facility_handler_name", "facility_handler_contact", "facility_handler_notes", "vendor_name",
            "vendor_contact", "vendor_notes",
        ]
        var values: [String: JSONValue] = [:]
        for key in keys { values[key] = try Fields.string(body, key).map(JSONValue.string) ?? .null }
        return try updateIssue(user, context, id) { doc in
            doc["handler_type"] = .string(type)
            for key in keys {
                let applies =
                    (type == "facility" && key.hasPrefix("facility_"))
                    || (type == "vendor" && key.hasPrefix("vendor_"))
                doc[key] = applies ? values[key] : .null
            }
        }
    }

    /// GET or POST /issues/<id>/comments: `[{id, author_name, body, created_at}]`, oldest first.
    func issueComments(_ user: AuthUser, _ context: RouteContext, _ id: Int64, adding: Bool) throws -> HTTPResponse {
        var text: String?
        if adding {
            let body = try context.body()
            text = try Fields.string(body, "body", required: true)
            guard !(text ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw refuse(422, "A comment needs some text.")
            }
        }
        let comments: [Doc] = try store.queue.write { db in
            _ = try visibleIssue(db, user, id)
            if let text {
                let comment: Doc = [
                    "id": .int(try store.nextID(db)), "issue_id": .int(id), "author_id": .int(user.id),
                    "body": .string(text), "created_at": .string(DateFormats.instantString(now)),
                ]
                try store.put(db, .comment, comment)
            }
            return try store.all(db, .comment, where: .issueID, is: id)
        }
        return Envelope.success(
            .array(
                comments.map { comment in
                    .object([
                        "id": comment["id"] ?? .null, "author_name": reference.displayName(comment.int("author_id")),
                        "body": comment["body"] ?? .null, "created_at": comment["created_at"] ?? .null,
                    ])
                }), status: adding ? 201 : 200)
    }
}
