import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

@testable import JQCIssues

extension IssueTestWorld {
    /// Answers the next `GET /api/v1/issues` with `issues` and `etag` (`nil`: none sent), or a 304 when `issues`
    /// is `nil`.
    func answerIssues(_ issues: [JSONValue]?, etag: String?) {
        let headers: HTTPHeaders = etag.map { ["ETag": $0] } ?? [:]
        if let issues {
            transport.route(.get, path: "/api/v1/issues", [.ok(.array(issues), headers: headers)])
        } else {
            transport.route(.get, path: "/api/v1/issues", [.reply(HTTPResponse(status: 304, headers: headers))])
        }
    }

    /// The `If-None-Match` of the last `GET /api/v1/issues` ("-" when none).
    var lastIssuesCondition: String? {
        transport.requests.last { $0.url.path == "/api/v1/issues" }.map { $0.headers["If-None-Match"] ?? "-" }
    }
}

@Suite("Assigned issues: conditional pulls (issue 17)")
struct IssuePullETagTests {
    @Test("a 304 reconciles the kept list as if it had been sent: issues and queued edits kept; a new list replaces it")
    func notModifiedReplaysKeptList() async throws {
        let world = try IssueTestWorld()
        world.answerIssues([IssueTestWorld.serverIssue(48), IssueTestWorld.serverIssue(49)], etag: #""i1""#)
        let first = try await world.issues.pullAssigned(now: world.clock.now)
        #expect(first.upserted == 2)
        #expect(world.lastIssuesCondition == "-")

        _ = try world.issues.updateStatus(id: "49", status: "in-progress")
        world.answerIssues(nil, etag: #""i1""#)
        let second = try await world.issues.pullAssigned(now: world.clock.now)
        #expect(world.lastIssuesCondition == #""i1""#)
        #expect(second.upserted == 2 && second.deleted.isEmpty && second.problems.isEmpty)
        #expect(Set(try world.issues.list(includeResolved: true).map(\.displayID)) == ["48", "49"])
        #expect(try world.issues.issue(id: "49").status == .inProgress)  // the queued edit is never overwritten

        // A changed list replaces the kept one: 49 is gone on the server and is deleted here (rule 30).
        world.answerIssues([IssueTestWorld.serverIssue(48)], etag: #""i2""#)
        let third = try await world.issues.pullAssigned(now: world.clock.now)
        #expect(third.deleted.count == 1)
        world.answerIssues(nil, etag: #""i2""#)
        _ = try await world.issues.pullAssigned(now: world.clock.now)
        #expect(world.lastIssuesCondition == #""i2""#)
        #expect(try world.issues.list(includeResolved: true).map(\.displayID) == ["48"])
    }

    @Test("the ETag is dropped with the server-known issues, and by a reply without one or with an unreadable issue")
    func droppedETags() async throws {
        let world = try IssueTestWorld()
        world.answerIssues([IssueTestWorld.serverIssue(48)], etag: #""i1""#)
        try await world.issues.pullAssigned(now: world.clock.now)
        try world.issues.clearServerPulledData()
        world.answerIssues([IssueTestWorld.serverIssue(48)], etag: nil)
        try await world.issues.pullAssigned(now: world.clock.now)
        #expect(world.lastIssuesCondition == "-")  // a 304 never stands for an empty cache
        #expect(try world.issues.list(includeResolved: true).map(\.displayID) == ["48"])

        world.answerIssues([IssueTestWorld.serverIssue(48)], etag: nil)
        try await world.issues.pullAssigned(now: world.clock.now)
        #expect(world.lastIssuesCondition == "-")  // a server without ETags: unconditional, unchanged

        world.answerIssues([IssueTestWorld.serverIssue(48), ["id": 50, "severity": 5]], etag: #""i3""#)
        let unreadable = try await world.issues.pullAssigned(now: world.clock.now)
        #expect(unreadable.problems.count == 1)
        world.answerIssues([IssueTestWorld.serverIssue(48)], etag: #""i4""#)
        try await world.issues.pullAssigned(now: world.clock.now)
        #expect(world.lastIssuesCondition == "-")
    }
}
