import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

@testable import JQCScheduling

extension SchedulingWorld {
    /// One pass answered with `reply` and `etag` (`nil`: none sent), or a 304 when `reply` is `nil`.
    func pull(_ reply: [JSONValue]?, etag: String?) async throws -> StageReport {
        let headers: HTTPHeaders = etag.map { ["ETag": $0] } ?? [:]
        if let reply {
            transport.route(.get, path: SchedulingService.listPath, [.ok(.array(reply), headers: headers)])
        } else {
            transport.route(
                .get, path: SchedulingService.listPath, [.reply(HTTPResponse(status: 304, headers: headers))])
        }
        return try await stage.run(SyncPass(isExplicit: true, clock: clock, classify: SyncFailure.classify))
    }

    /// The `If-None-Match` of the last request ("-" when none).
    var lastCondition: String? { transport.requests.last.map { $0.headers["If-None-Match"] ?? "-" } }
}

@Suite("Scheduled inspections: conditional pulls (issue 17)")
struct ScheduleETagTests {
    @Test("the ETag is sent back; a 304 keeps the cache, shows a locally hidden schedule again and counts as a pull")
    func notModified() async throws {
        let world = try SchedulingWorld()
        let schedules = [scheduleJSON(901, due: "2026-07-14"), scheduleJSON(902, due: "2026-07-09")]
        _ = try await world.pull(schedules, etag: #""s1""#)
        #expect(world.lastCondition == "-")
        #expect(try world.store.etag() == #""s1""#)
        try world.store.queue.write { db in try world.store.markFulfilledLocally(db, serverID: 901) }
        try world.store.recordRefresh(error: "offline")

        let report = try await world.pull(nil, etag: #""s1""#)
        #expect(world.lastCondition == #""s1""#)
        #expect(report.pulled == 0 && report.error == nil)
        // What re-applying the cached reply would do: every row kept, the hidden one shown (rule 71).
        #expect(try world.service.scheduled().map(\.serverID) == [902, 901])
        #expect(try world.store.refreshState().lastError == nil)
        #expect(try world.store.etag() == #""s1""#)
    }

    @Test("the ETag is dropped with the cache, and by a reply without one or with an unreadable schedule")
    func droppedETags() async throws {
        let world = try SchedulingWorld()
        _ = try await world.pull([scheduleJSON(901, due: "2026-07-14")], etag: #""s1""#)
        try world.store.clearCache()
        #expect(try world.store.etag() == nil)
        _ = try await world.pull([scheduleJSON(901, due: "2026-07-14")], etag: nil)
        #expect(world.lastCondition == "-")  // a 304 never stands for an empty cache
        #expect(try world.store.etag() == nil)  // a server without ETags: the client works unchanged
        #expect(try world.store.all().map(\.serverID) == [901])

        _ = try await world.pull([scheduleJSON(901, due: "2026-07-14")], etag: #""s2""#)
        #expect(try world.store.etag() == #""s2""#)
        let report = try await world.pull([scheduleJSON(901, due: "2026-07-14"), ["id": 902]], etag: #""s3""#)
        #expect(report.failed == 1)
        #expect(try world.store.etag() == nil)
    }
}
