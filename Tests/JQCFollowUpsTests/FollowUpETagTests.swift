import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

@testable import JQCFollowUps

extension FollowUpWorld {
    /// One pass answered with `reply` (the list's `inspections`) and `etag` (`nil`: none sent), or a 304 when
    /// `reply` is `nil`.
    @discardableResult
    func pull(_ reply: [JSONValue]?, etag: String?) async throws -> StageReport {
        let headers: HTTPHeaders = etag.map { ["ETag": $0] } ?? [:]
        if let reply {
            transport.route(
                .get, path: FollowUpService.listPath,
                [.ok(["inspections": .array(reply), "total": .int(Int64(reply.count))], headers: headers)])
        } else {
            transport.route(.get, path: FollowUpService.listPath, [.reply(HTTPResponse(status: 304, headers: headers))])
        }
        return try await FollowUpsPullStage(service: service).run(
            SyncPass(isExplicit: true, clock: clock, classify: SyncFailure.classify))
    }

    /// The `If-None-Match` of the last follow-ups request ("-" when none).
    var lastCondition: String? {
        transport.requests.last { $0.url.path == FollowUpService.listPath }.map { $0.headers["If-None-Match"] ?? "-" }
    }
}

@Suite("Follow-up requests: conditional pulls (issue 17)")
struct FollowUpETagTests {
    @Test("a 304 applies the kept reply again: requests kept, and the flag mirrored onto an inspection synced since")
    func notModifiedReplays() async throws {
        let world = try FollowUpWorld()
        try await world.pull([parentJSON(501, formData: parentAnswers)], etag: #""u1""#)
        #expect(world.lastCondition == "-")
        // The parent arrives on this device after the pull (synced from here): only a replay mirrors the flag.
        let local = try world.syncedInspection(serverID: 501, answers: ["5": "here"])
        #expect(try world.inspections.inspection(localID: local.localID).followUpRequired == false)

        let report = try await world.pull(nil, etag: #""u1""#)
        #expect(world.lastCondition == #""u1""#)
        #expect(report.pulled == 1 && report.error == nil)
        #expect(try world.service.followUps().map(\.serverID) == [501])
        #expect(try world.inspections.inspection(localID: local.localID).followUpRequired == true)
        #expect(try world.store.refreshState().lastError == nil)
    }

    @Test(
        "the kept reply and its ETag are dropped with the cache, and by a reply without one or with an unreadable item")
    func droppedETags() async throws {
        let world = try FollowUpWorld()
        try await world.pull([parentJSON(501, formData: parentAnswers)], etag: #""u1""#)
        try world.store.clearCache()
        #expect(try world.store.pullCondition() == nil)
        try await world.pull([parentJSON(501, formData: parentAnswers)], etag: nil)
        #expect(world.lastCondition == "-")
        #expect(try world.store.pullCondition() == nil)
        try await world.pull([parentJSON(501, formData: parentAnswers)], etag: #""u2""#)
        #expect(try world.store.pullCondition()?.etag == #""u2""#)
        let report = try await world.pull([parentJSON(501, formData: parentAnswers), ["id": "x"]], etag: #""u3""#)
        #expect(report.failed == 1)
        #expect(try world.store.pullCondition() == nil)
    }
}
