import Foundation
import JQCKit

@testable import JQCDevServer

/// The dev server's queries as they were before issue 17 moved them into SQL — every record parsed, then
/// filtered and counted in Swift — kept as the oracle the SQL versions must agree with, value for value.
struct LegacyQueries {
    let server: DirectServer
    let baseURL = "http://127.0.0.1:5055"

    var router: DevServerRouter { server.router }
    var reference: ReferenceData { server.store.reference }

    func user(_ username: String) throws -> AuthUser {
        guard let doc = reference.users.first(where: { $0.string("username") == username }) else {
            throw TestFailure("There is no user \(username).")
        }
        return router.authUser(doc)
    }

    func scope(_ user: AuthUser) -> Set<Int64> {
        Set(
            reference.facilities.filter { user.projectIDs.contains($0.int("project_id") ?? -1) }
                .compactMap { $0.int("id") })
    }

    func canSee(inspection: Doc, _ user: AuthUser) -> Bool {
        if user.isInspector { return inspection.int("inspector_id") == user.id }
        return scope(user).contains(inspection.int("facility_id") ?? -1)
    }

    func isOutstandingFollowUp(_ doc: Doc, all: [Doc]) -> Bool {
        guard doc.bool("follow_up_required"), doc.string("status") == "completed", let id = doc.int("id") else {
            return false
        }
        return !all.contains { $0.int("parent_inspection_id") == id }
    }

    func overallScore(_ doc: Doc) -> JSONValue {
        if let stored = doc["overall_score"] { return stored }
        let schema = reference.template(doc.int("template_id"))?["form_schema"] ?? .array([])
        return ServerScoring.score(schema: schema, formData: doc["form_data"]?.objectValue ?? [:])
            .map(JSONValue.double) ?? .null
    }

    func records(_ kind: RecordKind) throws -> [Doc] {
        try server.store.queue.read { try server.store.all($0, kind) }
    }

    /// `GET /dashboard/stats`'s data, computed the old way.
    func dashboard(_ username: String, today: CalendarDay) throws -> JSONValue {
        let user = try user(username)
        let inspections = try records(.inspection), issues = try records(.issue), schedules = try records(.schedule)
        let weekStart = today.adding(days: -6)
        let visible = inspections.filter { canSee(inspection: $0, user) }
        let thisWeek = visible.filter { doc in
            guard let day = doc.string("inspection_date").flatMap(CalendarDay.init) else { return false }
            return day >= weekStart && day <= today
        }
        let scores = thisWeek.compactMap { overallScore($0).doubleValue }
        let average: JSONValue =
            scores.isEmpty
            ? .null : .double(ServerScoring.roundedToHundredths(scores.reduce(0, +) / Double(scores.count)))
        let open = issues.filter { router.canSee(issue: $0, user) && $0.string("status") != "resolved" }.count
        let scope = scope(user)
        let overdue = schedules.filter { schedule in
            guard schedule.bool("active") else { return false }
            if let inspector = schedule.int("inspector_id") {
                guard inspector == user.id else { return false }
            } else {
                guard scope.contains(schedule.int("facility_id") ?? -1) else { return false }
            }
            return schedule.string("due_date").flatMap(CalendarDay.init).map { $0 < today } ?? false
        }.count
        let pending = visible.filter { isOutstandingFollowUp($0, all: inspections) }.count
        return .object([
            "inspections_this_week": .int(Int64(thisWeek.count)), "average_score": average,
            "open_issues": .int(Int64(open)), "overdue_schedules": .int(Int64(overdue)),
            "pending_follow_ups": .int(Int64(pending)),
        ])
    }

    /// `GET /inspections`'s data for `query`, computed the old way.
    func inspections(_ username: String, query: [String: String]) throws -> JSONValue {
        let user = try user(username)
        let limit = min(Int(query["limit"] ?? "30") ?? 30, 200), offset = Int(query["offset"] ?? "0") ?? 0
        let followUps = query["follow_up_required"].map { ["true", "1"].contains($0.lowercased()) } ?? false
        let all = try records(.inspection)
        var visible = all.filter { canSee(inspection: $0, user) }
        if let status = query["status"], !status.isEmpty { visible = visible.filter { $0.string("status") == status } }
        if followUps { visible = visible.filter { isOutstandingFollowUp($0, all: all) } }
        visible.sort { left, right in
            let leftDay = left.string("inspection_date") ?? "", rightDay = right.string("inspection_date") ?? ""
            if leftDay != rightDay { return leftDay > rightDay }
            return (left.int("id") ?? 0) > (right.int("id") ?? 0)
        }
        let page = visible.dropFirst(offset).prefix(limit)
        return .object([
            "inspections": .array(page.map { router.inspectionJSON($0, baseURL: baseURL) }),
            "total": .int(Int64(visible.count)), "limit": .int(Int64(limit)), "offset": .int(Int64(offset)),
        ])
    }

    /// The ids `GET /issues` lists, newest first, the old way.
    func issueIDs(_ username: String) throws -> [Int64] {
        let user = try user(username)
        return try records(.issue).filter { router.canSee(issue: $0, user) }.reversed().compactMap { $0.int("id") }
    }

    /// The ids `GET /notifications` lists (no cursor), the old way.
    func notificationIDs(_ username: String) throws -> [Int64] {
        let user = try user(username)
        return try records(.notification).filter { $0.int("user_id") == user.id }.sorted { left, right in
            let leftDate = left.string("created_at").flatMap(DateFormats.instant(from:)) ?? .distantPast
            let rightDate = right.string("created_at").flatMap(DateFormats.instant(from:)) ?? .distantPast
            return leftDate != rightDate ? leftDate < rightDate : (left.int("id") ?? 0) < (right.int("id") ?? 0)
        }.compactMap { $0.int("id") }
    }
}
