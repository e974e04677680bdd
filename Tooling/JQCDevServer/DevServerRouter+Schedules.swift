import Foundation
import JQCKit
import JQCStorage

extension DevServerRouter {
    /// The contract's `schedule` payload (with `active` when `includeActive`).
    func scheduleJSON(_ doc: Doc, includeActive: Bool = false) -> JSONValue {
        func pass(_ key: String) -> JSONValue { doc[key] ?? .null }
        let frequency = doc.string("frequency") ?? "once"
        let due = doc.string("due_date").flatMap(CalendarDay.init)
        let labels = ["once": "One-time", "daily": "Daily", "weekly": "Weekly", "monthly": "Monthly"]
        var json: [String: JSONValue] = [
            "id": pass("id"), "facility_id": pass("facility_id"),
            "facility_name": reference.facility(doc.int("facility_id"))?["name"] ?? .null,
            "template_id": pass("template_id"),
            "template_name": reference.template(doc.int("template_id"))?["name"] ?? .null,
            "inspector_id": pass("inspector_id"), "frequency": .string(frequency),
            "frequency_label": .string(labels[frequency] ?? frequency.capitalized), "due_date": pass("due_date"),
            "next_due_date": frequency == "once"
                ? .null
                : due.map { .string(Self.advance($0, frequency: frequency).text) } ?? .null,
            "is_overdue": .bool(due.map { $0 < serverToday } ?? false), "notes": pass("notes"),
            "parent_inspection_id": pass("parent_inspection_id"),
        ]
        if includeActive { json["active"] = .bool(doc.bool("active")) }
        return .object(json)
    }

    /// Active schedules assigned to the user, or unassigned at a facility of the user's contracts.
    func visibleSchedules(_ all: [Doc], _ user: AuthUser) -> [Doc] {
        let scope = facilityIDsInScope(user)
        return all.filter { schedule in
            guard schedule.bool("active") else { return false }
            if let inspector = schedule.int("inspector_id") { return inspector == user.id }
            return scope.contains(schedule.int("facility_id") ?? -1)
        }
    }

    func listSchedules(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        let all = try store.queue.read { try store.all($0, .schedule) }
        let visible = visibleSchedules(all, user).sorted {
            ($0.string("due_date") ?? "", $0.int("id") ?? 0) < ($1.string("due_date") ?? "", $1.int("id") ?? 0)
        }
        return Envelope.success(.array(visible.map { scheduleJSON($0) }))
    }

    /// POST /scheduled-inspections/follow-up: creates, or re-dates, the parent's active one-time follow-up.
    func scheduleFollowUp(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        let body = try context.body()
        let parentID = try Fields.int(body, "parent_inspection_id", required: true)!
        let dueText = try Fields.string(body, "due_date", required: true)!
        let notes = try Fields.string(body, "notes")
        guard let due = CalendarDay(dueText) else {
            throw refuse(422, "The due date \(dueText) is not a yyyy-MM-dd day.")
        }
        let doc: Doc = try store.queue.write { db in
            guard let parent = try store.get(db, .inspection, parentID), canSee(inspection: parent, user) else {
                throw refuse(404, "There is no inspection \(parentID) you can see.")
            }
            if var existing = try store.all(db, .schedule, where: .parentInspectionID, is: parentID).first(where: {
                $0.bool("active") && $0.string("frequency") == "once"
            }) {
                existing["due_date"] = .string(due.text)
                if let notes { existing["notes"] = .string(notes) }
                try store.put(db, .schedule, existing)
                return existing
            }
            let schedule: Doc = [
                "id": .int(try store.nextID(db)), "facility_id": parent["facility_id"] ?? .null,
                "template_id": parent["template_id"] ?? .null, "inspector_id": parent["inspector_id"] ?? .null,
                "frequency": "once", "due_date": .string(due.text), "notes": notes.map(JSONValue.string) ?? .null,
                "parent_inspection_id": .int(parentID), "active": .bool(true),
                "created_at": .string(DateFormats.instantString(now)),
            ]
            try store.put(db, .schedule, schedule)
            return schedule
        }
        return Envelope.success(scheduleJSON(doc))
    }

    // MARK: Notifications

    func notificationJSON(_ doc: Doc, includeUser: Bool = false) -> JSONValue {
        var json: [String: JSONValue] = [:]
        for key in ["id", "title", "body", "link", "event_type", "created_at"] { json[key] = doc[key] ?? .null }
        json["read"] = .bool(doc.bool("read"))
        if includeUser { json["user_id"] = doc["user_id"] ?? .null }
        return .object(json)
    }

    func listNotifications(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        var since: Date?
        if let raw = context.request.query["since"], !raw.isEmpty {
            // An unencoded "+" offset arrives as a space.
            let text = raw.replacingOccurrences(of: " ", with: "+")
            guard let date = DateFormats.instant(from: text) else {
                throw refuse(400, "since must be an ISO 8601 instant such as 2026-07-14T09:30:00-04:00.")
            }
            since = date
        }
        let all = try store.queue.read { try store.all($0, .notification, where: .userID, is: user.id) }
        let mine = all.filter { doc in
            guard let since else { return true }
            guard let created = doc.string("created_at").flatMap(DateFormats.instant(from:)) else { return true }
            return created > since
        }.sorted { left, right in
            let leftDate = left.string("created_at").flatMap(DateFormats.instant(from:)) ?? .distantPast
            let rightDate = right.string("created_at").flatMap(DateFormats.instant(from:)) ?? .distantPast
            return leftDate != rightDate ? leftDate < rightDate : (left.int("id") ?? 0) < (right.int("id") ?? 0)
        }
        return Envelope.success(.array(mine.map { notificationJSON($0) }))
    }

    func markNotificationsRead(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        let body = try context.body()
        guard case .array(let items)? = body["ids"] else {
            throw refuse(400, "The field ids is required and must be an array of integers.")
        }
        let ids = try Set(
            items.map { item -> Int64 in
                guard let id = item.intValue else { throw refuse(400, "The field ids must list integers.") }
                return id
            })
        let updated: Int = try store.queue.write { db in
            var count = 0
            for id in ids {
                guard var doc = try store.get(db, .notification, id), doc.int("user_id") == user.id,
                    !doc.bool("read")
                else { continue }
                doc["read"] = .bool(true)
                try store.put(db, .notification, doc)
                count += 1
            }
            return count
        }
        return Envelope.success(.object(["updated": .int(Int64(updated))]))
    }

    /// Creates a notification for `userID` (admin helper and server events).
    func addNotification(
        _ db: Database, userID: Int64, title: String, body: String, link: String?,
        eventType: String
    ) throws -> Doc {
        let doc: Doc = [
            "id": .int(try store.nextID(db)), "user_id": .int(userID), "title": .string(title), "body": .string(body),
            "link": link.map(JSONValue.string) ?? .null, "event_type": .string(eventType),
            "created_at": .string(DateFormats.preciseInstantString(now)), "read": .bool(false),
        ]
        try store.put(db, .notification, doc)
        return doc
    }

    // MARK: Dashboard

    /// SQL true when the text column `column` (a JSON string, ``ServerStore/Column``) is a valid `yyyy-MM-dd`
    /// day — twelve characters with its quotes, and SQLite's `date()` gives the day back unchanged, as
    /// ``CalendarDay`` requires (`2026-02-30` is not a day).
    static func isDaySQL(_ column: String) -> String {
        "length(\(column)) = 12 AND date(substr(\(column), 2, 10)) IS substr(\(column), 2, 10)"
    }

    /// `{inspections_this_week, average_score, open_issues, overdue_schedules, pending_follow_ups}`: the
    /// week is the seven days ending with the server's today; the average is over that week's scored
    /// inspections. Counted by SQL over the record columns (issue 17); only this week's scores are read,
    /// and a seed record without a stored score is scored like its payload's `overall_score`.
    func dashboard(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        let today = serverToday
        let weekStart = today.adding(days: -6)
        let visible = visibleInspectionsSQL(user)
        let scope = JSONValue.array(user.facilityScope.sorted().map(JSONValue.int)).jsonString()
        let counts = try store.queue.read {
            db -> (week: Int, scores: [Double], open: Int64, overdue: Int64, pending: Int64) in
            // The member's own JSON text (`->`): the number exactly as stored, not re-printed by SQLite.
            let week = try db.fetchAll(
                """
                SELECT json_type(doc, '$.overall_score') AS score_type, doc -> '$.overall_score' AS score,
                       CASE WHEN json_type(doc, '$.overall_score') IS NULL THEN doc END AS unscored
                FROM records
                WHERE kind = 'inspection' AND \(visible.sql)
                  AND inspection_date BETWEEN ? AND ? AND \(Self.isDaySQL("inspection_date"))
                ORDER BY id
                """, visible.arguments + [JSONValue.string(weekStart.text), JSONValue.string(today.text)])
            var scores: [Double] = []
            for row in week {
                switch row["score_type"] as String? {
                case "integer", "real":
                    if let text = row["score"] as String?, let score = Double(text) { scores.append(score) }
                case nil:
                    if let doc = (row["unscored"] as JSONValue?)?.objectValue,
                        let score = overallScore(doc).doubleValue
                    {
                        scores.append(score)
                    }
                default:
                    break
                }
            }
            let open: Int64 =
                try db.scalar(
                    """
                    SELECT count(*) FROM records WHERE kind = 'issue'
                      AND id IN (\(ServerStore.visibleIssueIDsSQL)) AND status IS NOT '"resolved"'
                    """, [user.id]) ?? 0
            let overdue: Int64 =
                try db.scalar(
                    """
                    SELECT count(*) FROM records WHERE kind = 'schedule' AND json_type(doc, '$.active') = 'true'
                      AND CASE WHEN inspector_id IS NOT NULL THEN inspector_id = ?
                               ELSE facility_id IN (SELECT value FROM json_each(?)) END
                      AND \(Self.isDaySQL("due_date")) AND due_date < ?
                    """, [user.id, scope, JSONValue.string(today.text)]) ?? 0
            let pending: Int64 =
                try db.scalar(
                    """
                    SELECT count(*) FROM records
                    WHERE kind = 'inspection' AND \(visible.sql) AND \(Self.outstandingFollowUpSQL)
                    """, visible.arguments) ?? 0
            return (week.count, scores, open, overdue, pending)
        }
        let average: JSONValue =
            counts.scores.isEmpty
            ? .null
            : .double(ServerScoring.roundedToHundredths(counts.scores.reduce(0, +) / Double(counts.scores.count)))
        return Envelope.success(
            .object([
                "inspections_this_week": .int(Int64(counts.week)), "average_score": average,
                "open_issues": .int(counts.open), "overdue_schedules": .int(counts.overdue),
                "pending_follow_ups": .int(counts.pending),
            ]))
    }
}
