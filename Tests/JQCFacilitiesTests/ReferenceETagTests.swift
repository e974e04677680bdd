import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

@testable import JQCFacilities

extension ReferenceFixture {
    /// Scripts one pull: each list fresh with its ETag (`nil`: none sent), or a 304 when its data is `nil`.
    func script(
        facilities: (JSONValue?, String?), areas: (JSONValue?, String?), templates: (JSONValue?, String?)
    ) {
        for (path, answer) in [
            ("/api/v1/facilities", facilities), ("/api/v1/areas", areas), ("/api/v1/templates", templates),
        ] {
            let headers: HTTPHeaders = answer.1.map { ["ETag": $0] } ?? [:]
            if let data = answer.0 {
                transport.route(.get, path: path, [.ok(data, headers: headers)])
            } else {
                transport.route(.get, path: path, [.reply(HTTPResponse(status: 304, headers: headers))])
            }
        }
    }

    /// The `If-None-Match` each request since `index` carried, by path.
    func conditions(since index: Int) -> [String: String] {
        var found: [String: String] = [:]
        for request in transport.requests.dropFirst(index) {
            found[request.url.path] = request.headers["If-None-Match"] ?? "-"
        }
        return found
    }
}

let area111: JSONValue = ["id": 111, "facility_id": 11, "name": "Lobby", "area_type": "lobby"]
let area211: JSONValue = ["id": 211, "facility_id": 21, "name": "Ward", "area_type": "ward"]
let template3: JSONValue = [
    "id": 3, "name": "Restroom QC", "description": "daily", "is_active": true, "form_schema": schemaWithSnakeKeys,
]

@Suite("Reference pull: ETags and diff-apply (issue 17)")
struct ReferenceETagTests {
    @Test("a 304 keeps its list as cached and counts as a successful pull for the prune rules")
    func notModifiedKeepsCacheAndCounts() async throws {
        let world = try ReferenceFixture()
        world.script(
            facilities: ([facility(11, "Main"), facility(21, "Clinic")], #""f1""#),
            areas: ([area111, area211], #""a1""#), templates: ([template3], #"W/"t1""#))
        _ = try await world.stage().run(world.pass)
        #expect(try world.store.etags() == [.facilities: #""f1""#, .areas: #""a1""#, .templates: #"W/"t1""#])

        // Facilities and templates unchanged (304); areas fresh without 211: the 304 counts, so 211 is pruned.
        world.clock.advance(by: 300)
        var sent = world.transport.requests.count
        world.script(facilities: (nil, #""f1""#), areas: ([area111], #""a2""#), templates: (nil, nil))
        let second = try await world.stage().run(world.pass)
        #expect(
            world.conditions(since: sent) == [
                "/api/v1/facilities": #""f1""#, "/api/v1/areas": #""a1""#, "/api/v1/templates": #"W/"t1""#,
            ])
        #expect(second.pulled == 1)
        #expect(Set(try world.store.facilities().map(\.id)) == [11, 21])
        #expect(try world.store.areas(facilityID: 11).map(\.id) == [111])
        #expect(try world.store.areas(facilityID: 21).isEmpty)
        #expect(try world.store.templates().map(\.id) == [3])
        #expect(try world.store.etags() == [.facilities: #""f1""#, .areas: #""a2""#, .templates: #"W/"t1""#])
        for collection in ReferenceCollection.allCases {
            let state = try world.store.refreshState(collection)
            #expect(state.lastError == nil)
            #expect(state.lastSuccessAt == world.clock.now)
        }

        // Facilities fresh without 21: 21 is pruned, and areas (applied against the cached facilities, rule 57) are
        // read in full, with no If-None-Match, while templates stay conditional.
        sent = world.transport.requests.count
        world.script(
            facilities: ([facility(11, "Main")], #""f2""#), areas: ([area111], #""a2""#), templates: (nil, nil))
        _ = try await world.stage().run(world.pass)
        #expect(
            world.conditions(since: sent) == [
                "/api/v1/facilities": #""f1""#, "/api/v1/areas": "-", "/api/v1/templates": #"W/"t1""#,
            ])
        #expect(try world.store.facilities().map(\.id) == [11])
        #expect(try world.store.etags()[.areas] == #""a2""#)
    }

    @Test("a stored ETag is dropped with its cached list, so a 304 never stands for an empty cache")
    func clearedCacheDropsETags() async throws {
        let world = try ReferenceFixture()
        world.script(
            facilities: ([facility(11, "Main")], #""f1""#), areas: ([area111], #""a1""#),
            templates: ([template3], #""t1""#))
        _ = try await world.stage().run(world.pass)
        try world.store.clearCache()
        #expect(try world.store.etags().isEmpty)
        let sent = world.transport.requests.count
        world.script(facilities: ([facility(11, "Main")], nil), areas: ([area111], nil), templates: ([template3], nil))
        _ = try await world.stage().run(world.pass)
        #expect(world.conditions(since: sent).values.allSatisfy { $0 == "-" })
        #expect(try world.store.facilities().map(\.id) == [11])
        #expect(try world.store.etags().isEmpty)  // a server without ETags: the client works unchanged
    }

    @Test("a list with an unreadable record keeps no ETag, so the next pass reads and reports it again")
    func unreadableRecordKeepsNoETag() async throws {
        let world = try ReferenceFixture()
        world.script(
            facilities: ([facility(11, "Main"), ["id": 21, "name": 5]], #""f1""#), areas: ([area111], #""a1""#),
            templates: ([template3], #""t1""#))
        let report = try await world.stage().run(world.pass)
        #expect(report.failed == 1)
        #expect(report.problems == ["facilities: data[1].name: expected a string, got 5"])
        #expect(try world.store.etags() == [.areas: #""a1""#, .templates: #""t1""#])
    }

    @Test("an unchanged reply writes no row; one changed record writes one")
    func unchangedReplyWritesNothing() async throws {
        let world = try ReferenceFixture()
        let facilities: JSONValue = [facility(11, "Main"), facility(21, "Clinic")]
        world.script(facilities: (facilities, nil), areas: ([area111, area211], nil), templates: ([template3], nil))
        _ = try await world.stage().run(world.pass)
        func reply(_ facilities: [Facility]) throws -> ReferencePull {
            let template = try #require(try world.store.template(id: 3))
            return ReferencePull(
                ReferenceReply(
                    facilities: facilities,
                    areas: try world.store.areas(facilityID: 11) + world.store.areas(facilityID: 21),
                    templates: [template]))
        }
        let cached = try world.store.facilities()
        // rowsWritten adds SQLite's own count of the rows each statement changed.
        let same = try world.store.apply(try reply(cached), now: world.clock.now, referencedFacilityIDs: { _ in [] })
        #expect(same.rowsWritten == 0)
        var renamed = cached
        renamed[0].name = "Renamed"
        let one = try world.store.apply(try reply(renamed), now: world.clock.now, referencedFacilityIDs: { _ in [] })
        #expect(one.rowsWritten == 1)
        #expect(try world.store.facility(id: renamed[0].id)?.name == "Renamed")
        // Through the stage: the same reply again leaves every row as it was.
        world.script(facilities: (facilities, nil), areas: ([area111, area211], nil), templates: ([template3], nil))
        let again = try await world.stage().run(world.pass)
        #expect(again.pulled == 5)
        #expect(try world.store.facilities() == cached)
    }

    @Test("only a well-formed entity tag is stored and sent back")
    func usableETags() {
        #expect(APIClient.usableETag(#""abc""#) == #""abc""#)
        #expect(APIClient.usableETag(#"W/"abc""#) == #"W/"abc""#)
        #expect(APIClient.usableETag("abc") == nil)
        #expect(APIClient.usableETag("\"a\r\nX-Evil: 1\"") == nil)
        #expect(APIClient.usableETag("\"" + String(repeating: "a", count: 300) + "\"") == nil)
        #expect(APIClient.usableETag(#""a"b""#) == nil)
    }
}
