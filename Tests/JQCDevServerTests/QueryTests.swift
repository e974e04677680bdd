import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

/// Issue 17, server side: dedupe and the sync path's lookups use indexes; dashboard stats and the lists are
/// computed in SQL and agree, value for value, with the record-by-record queries they replaced.
@Suite("Server queries")
struct QueryTests {
    /// A contract big enough to show differences, small enough for a debug build's oracle (quadratic).
    static let mediumSeed = BigSeed(
        facilities: 300, areasPerFacility: 3, templates: 20, fieldsPerTemplate: 60, inspections: 600, issues: 200,
        schedules: 120, notifications: 60)

    /// SQLite's plan for `sql` (the `detail` of each step).
    func plan(_ server: DirectServer, _ sql: String, _ arguments: [String]) throws -> [String] {
        try server.store.queue.read { db in
            try db.fetchAll("EXPLAIN QUERY PLAN " + sql, arguments).compactMap { $0["detail"] as String? }
        }
    }

    @Test("the local_id dedupe lookup is an index search, never a scan of the records")
    func dedupeUsesIndex() throws {
        let server = try DirectServer()
        for owner in [ServerStore.Column.inspectorID, .reportedByID] {
            let steps = try plan(server, ServerStore.dedupeSQL(owner: owner), ["inspection", "\"x\"", "7"])
            #expect(
                steps.contains {
                    $0.hasPrefix("SEARCH records USING INDEX records_by_local_id (kind=? AND local_id=?)")
                }, "\(steps)")
            #expect(!steps.contains { $0.hasPrefix("SCAN") }, "\(steps)")
        }
        let children = try plan(
            server,
            "SELECT count(*) FROM records WHERE kind = 'inspection' AND " + DevServerRouter.outstandingFollowUpSQL,
            [])
        #expect(
            children.contains { $0.contains("USING") && $0.contains("records_by_parent_inspection_id") }, "\(children)")
        let issues = try plan(
            server, ServerStore.visibleIssueIDsSQL, ["7"])
        #expect(issues.contains { $0.contains("records_by_reported_by_id") }, "\(issues)")
        #expect(issues.contains { $0.contains("records_by_assigned_to_id") }, "\(issues)")
        for (column, kind) in [
            ("user_id", "notification"), ("issue_id", "comment"), ("parent_inspection_id", "schedule"),
        ] {
            let steps = try plan(
                server, "SELECT doc FROM records WHERE kind = ? AND \(column) = ? ORDER BY id", [kind, "1"])
            #expect(steps.contains { $0.contains("USING INDEX records_by_\(column)") }, "\(column): \(steps)")
        }
    }

    @Test("a repeated local_id returns the existing record, per user and kind, and /__admin/state counts it")
    func dedupeCounts() throws {
        let server = try DirectServer()
        let alex = server.token("alex"), sam = server.token("sam")
        let inspection: JSONValue = [
            "local_id": "dup-1", "template_id": 4, "facility_id": 21, "form_data": ["1": "Pass"],
        ]
        let first = server.request("POST", "/inspections", inspection, token: alex)
        let again = server.request("POST", "/inspections", inspection, token: alex)
        let other = server.request("POST", "/inspections", inspection, token: sam)
        #expect(first.status == 201 && again.status == 200 && other.status == 201)
        #expect(again.json?["data"]?["id"] == first.json?["data"]?["id"])
        #expect(other.json?["data"]?["id"] != first.json?["data"]?["id"])
        // A NUL inside a local id survives the lookup: the same id dedupes, another suffix does not.
        let nul: JSONValue = ["local_id": "dup\u{0}a", "template_id": 4, "facility_id": 21]
        let nulFirst = server.request("POST", "/inspections", nul, token: alex)
        #expect(nulFirst.status == 201)
        #expect(server.request("POST", "/inspections", nul, token: alex).status == 200)
        let nulOther: JSONValue = ["local_id": "dup\u{0}b", "template_id": 4, "facility_id": 21]
        #expect(server.request("POST", "/inspections", nulOther, token: alex).status == 201)

        let issue: JSONValue = ["local_id": "dup-i", "facility_id": 21, "severity": "low", "description": "Mat"]
        #expect(server.request("POST", "/issues", issue, token: alex).status == 201)
        #expect(server.request("POST", "/issues", issue, token: alex).status == 200)
        #expect(server.request("POST", "/issues", issue, token: alex).status == 200)
        let state = server.request("GET", "/__admin/state").json?["data"]
        #expect(state?["duplicates"] == ["inspections": 2, "issues": 2])
        #expect(state?["inspections"]?.arrayValue?.filter { $0["local_id"] == "dup-1" }.count == 2)
    }

    @Test("seed inspections store the very score their payload showed before")
    func seedScoresStored() throws {
        let server = try DirectServer(seed: Self.mediumSeed.json)
        let legacy = LegacyQueries(server: server)
        let seed = Self.mediumSeed.json["inspections"]?.arrayValue ?? []
        let stored = try legacy.records(.inspection)
        #expect(stored.count == seed.count)
        for (original, doc) in zip(seed, stored) {
            let expected =
                original["overall_score"]
                ?? legacy.overallScore(original.objectValue?.filter { $0.key != "overall_score" } ?? [:])
            #expect(doc["overall_score"] == expected, "inspection \(doc["id"] ?? .null)")
        }
    }

    @Test("dashboard stats and lists agree with the record-by-record queries, on the demo seed and a big one")
    func agreeWithLegacy() throws {
        let today = try requireDay("2026-07-14")
        let demo = try DirectServer()
        let medium = try DirectServer(seed: Self.mediumSeed.json)
        for (server, users) in [(demo, ["alex", "sam", "dana"]), (medium, ["alex", "sam", "sue", "dana"])] {
            try compare(server, users, today: today)
            try change(server)
            try compare(server, users, today: today)
        }
    }

    /// Writes that move every number: new, flagged and re-inspected inspections, issues, schedules.
    func change(_ server: DirectServer) throws {
        let alex = server.token("alex")
        let facility: Int64 = server.store.reference.facilities.first { $0.bool("is_active") }?.int("id") ?? 11
        let template: Int64 = server.store.reference.templates.first { $0.bool("is_active") }?.int("id") ?? 3
        var parents: [Int64] = []
        for index in 0..<8 {
            let body: JSONValue = [
                "local_id": .string("change-\(index)"), "template_id": .int(template), "facility_id": .int(facility),
                "follow_up_required": .bool(index % 2 == 0), "form_data": ["2": .int(Int64(index % 5 + 1))],
            ]
            let reply = server.request("POST", "/inspections", body, token: alex)
            #expect(reply.status == 201)
            if index % 2 == 0, let id = reply.json?["data"]?["id"]?.intValue { parents.append(id) }
        }
        for parent in parents.prefix(2) {
            let body: JSONValue = [
                "template_id": .int(template), "facility_id": .int(facility), "parent_inspection_id": .int(parent),
            ]
            #expect(server.request("POST", "/inspections", body, token: alex).status == 201)
        }
        if let parent = parents.last {
            let plan: JSONValue = ["parent_inspection_id": .int(parent), "due_date": "2026-07-01"]
            #expect(server.request("POST", "/scheduled-inspections/follow-up", plan, token: alex).status == 200)
        }
        let issue: JSONValue = ["facility_id": .int(facility), "severity": "high", "description": "Leak"]
        let created = server.request("POST", "/issues", issue, token: alex)
        let issueID = try #require(created.json?["data"]?["id"]?.intValue)
        #expect(server.request("PATCH", "/issues/\(issueID)/status", ["status": "resolved"], token: alex).status == 200)
        #expect(server.request("POST", "/issues", issue, token: alex).status == 201)
    }

    func compare(_ server: DirectServer, _ users: [String], today: CalendarDay) throws {
        let legacy = LegacyQueries(server: server)
        let queries: [[String: String]] = [
            [:], ["status": "completed", "limit": "30", "offset": "0"], ["status": "completed", "offset": "30"],
            ["follow_up_required": "true", "limit": "200"], ["limit": "0"], ["status": "draft", "limit": "200"],
        ]
        for username in users {
            let token = server.token(username)
            let stats = server.request("GET", "/dashboard/stats", token: token)
            #expect(stats.json?["data"] == (try legacy.dashboard(username, today: today)), "\(username)")
            for query in queries {
                let list = server.request("GET", "/inspections", token: token, query: query)
                #expect(list.json?["data"] == (try legacy.inspections(username, query: query)), "\(username) \(query)")
            }
            let issues = server.request("GET", "/issues", token: token).json?["data"]?.ids
            #expect(issues == (try legacy.issueIDs(username)), "\(username)")
            let notifications = server.request("GET", "/notifications", token: token).json?["data"]?.ids
            #expect(notifications == (try legacy.notificationIDs(username)), "\(username)")
        }
    }
}
