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
    /// The exact bytes of a success envelope around `data` (keys sorted, so equal values give equal bytes).
    static func body(_ data: JSONValue) -> Data {
        JSONValue.object(["ok": true, "data": data, "error": nil]).jsonData(sortedKeys: true)
    }

    /// Scripts one pull from a server without ETags: each list answered 200 with exactly `bytes`.
    func script(facilities: Data, areas: Data, templates: Data, etag: String? = nil) {
        let headers: HTTPHeaders = etag.map { ["ETag": $0] } ?? [:]
        for (path, bytes) in [
            ("/api/v1/facilities", facilities), ("/api/v1/areas", areas), ("/api/v1/templates", templates),
        ] {
            transport.route(.get, path: path, [.reply(HTTPResponse(status: 200, headers: headers, body: bytes))])
        }
    }

    /// Rows changed on the store's connection so far (`sqlite3_total_changes`).
    func totalChanges() throws -> Int { try queue.read { $0.totalChangesCount } }
}

@Suite("Reference pull: byte-identical replies from a server without ETags (issue 17)")
struct ReferenceDigestTests {
    let facilities = ReferenceFixture.body([facility(11, "Main"), facility(21, "Clinic")])
    let areas = ReferenceFixture.body([area111, area211])
    let templates = ReferenceFixture.body([template3])

    @Test("a byte-identical reply is neither decoded nor applied: the pass writes only the three refresh records")
    func sameBytesWriteNoRow() async throws {
        let world = try ReferenceFixture()
        world.script(facilities: facilities, areas: areas, templates: templates)
        let first = try await world.stage().run(world.pass)
        #expect(first.pulled == 5)
        let digests = try world.store.conditions()
        #expect(digests[.facilities]?.digest == ContentDigest.hex(facilities))
        #expect(digests[.areas]?.digest == ContentDigest.hex(areas) && digests[.areas]?.etag == nil)
        // Marks the cache so a re-apply would show: the same bytes must not rewrite the row.
        var marked = try #require(try world.store.template(id: 3))
        marked.name = "Local"
        try world.store.upsertTemplateForTesting(marked)

        world.clock.advance(by: 60)
        let before = try world.totalChanges()
        world.script(facilities: facilities, areas: areas, templates: templates)
        let second = try await world.stage().run(world.pass)
        #expect(second.pulled == 0 && second.error == nil)
        #expect(try world.totalChanges() - before == 3)  // one refresh record per collection, no data row
        #expect(try world.store.template(id: 3)?.name == "Local")
        for collection in ReferenceCollection.allCases {
            #expect(try world.store.refreshState(collection).lastSuccessAt == world.clock.now)
        }

        // One changed byte is a fresh list: decoded, diff-applied (the one changed row), its new digest stored.
        let renamed = ReferenceFixture.body([facility(11, "Main"), facility(21, "Clinix")])
        world.script(facilities: renamed, areas: areas, templates: templates)
        let third = try await world.stage().run(world.pass)
        #expect(third.pulled == 4)  // facilities, and areas read in full after a facilities change
        #expect(try world.store.facility(id: 21)?.name == "Clinix")
        #expect(try world.store.conditions()[.facilities]?.digest == ContentDigest.hex(renamed))
    }

    @Test("clearing the cache drops the digests: the same bytes fill it again")
    func clearedCacheDropsDigests() async throws {
        let world = try ReferenceFixture()
        world.script(facilities: facilities, areas: areas, templates: templates)
        _ = try await world.stage().run(world.pass)
        try world.store.clearCache()
        #expect(try world.store.conditions().isEmpty)
        world.script(facilities: facilities, areas: areas, templates: templates)
        let again = try await world.stage().run(world.pass)
        #expect(again.pulled == 5)
        #expect(Set(try world.store.facilities().map(\.id)) == [11, 21])
        #expect(try world.store.areas(facilityID: 21).map(\.id) == [211])
    }

    @Test("an area skipped for want of its facility is placed once the facility arrives, though /areas is unchanged")
    func skippedAreaIsPlacedLater() async throws {
        let world = try ReferenceFixture()
        let onlyMain = ReferenceFixture.body([facility(11, "Main")])
        world.script(facilities: onlyMain, areas: areas, templates: templates)
        _ = try await world.stage().run(world.pass)
        #expect(try world.store.areas(facilityID: 11).map(\.id) == [111])

        world.script(facilities: facilities, areas: areas, templates: templates)
        _ = try await world.stage().run(world.pass)
        #expect(try world.store.areas(facilityID: 21).map(\.id) == [211])
        #expect(try world.store.conditions()[.areas]?.digest == ContentDigest.hex(areas))
    }

    @Test("after a facilities change the areas are read in full: an area the prune cascaded away comes back")
    func areasAfterFacilitiesChange() async throws {
        let world = try ReferenceFixture()
        world.script(facilities: facilities, areas: areas, templates: templates, etag: #""v1""#)
        _ = try await world.stage().run(world.pass)
        // The server drops facility 21 from /facilities but its /areas bytes stay the same.
        world.script(facilities: ReferenceFixture.body([facility(11, "Main")]), areas: areas, templates: templates)
        _ = try await world.stage().run(world.pass)
        #expect(try world.store.areas(facilityID: 21).isEmpty)  // cascaded with its facility
        // 21 is back: /areas (the very bytes the digest was stored for at first) must be applied again.
        let sent = world.transport.requests.count
        world.script(facilities: facilities, areas: areas, templates: templates)
        _ = try await world.stage().run(world.pass)
        #expect(world.conditions(since: sent)["/api/v1/areas"] == "-")
        #expect(try world.store.areas(facilityID: 21).map(\.id) == [211])
    }

    @Test("a facility kept inactive for local work keeps no digest: once the work is gone the same bytes prune it")
    func retainedFacilityIsPrunedLater() async throws {
        let world = try ReferenceFixture()
        world.script(facilities: facilities, areas: areas, templates: templates)
        _ = try await world.stage().run(world.pass)
        let onlyMain = ReferenceFixture.body([facility(11, "Main")])
        let areasOfMain = ReferenceFixture.body([area111])
        world.script(facilities: onlyMain, areas: areasOfMain, templates: templates)
        _ = try await world.stage(referenced: [21]).run(world.pass)
        #expect(try world.store.facility(id: 21)?.isActive == false)
        #expect(try world.store.conditions()[.facilities] == nil)

        world.script(facilities: onlyMain, areas: areasOfMain, templates: templates)
        _ = try await world.stage().run(world.pass)
        #expect(try world.store.facility(id: 21) == nil)
        #expect(try world.store.conditions()[.facilities]?.digest == ContentDigest.hex(onlyMain))
    }

    @Test("a byte-identical reply that now carries an ETag stores it, so the next pull is conditional")
    func sameBytesLearnETag() async throws {
        let world = try ReferenceFixture()
        world.script(facilities: facilities, areas: areas, templates: templates)
        _ = try await world.stage().run(world.pass)
        world.script(facilities: facilities, areas: areas, templates: templates, etag: #""e1""#)
        let second = try await world.stage().run(world.pass)
        #expect(second.pulled == 0)
        #expect(try world.store.etags() == [.facilities: #""e1""#, .areas: #""e1""#, .templates: #""e1""#])
        let sent = world.transport.requests.count
        world.script(facilities: (nil, #""e1""#), areas: (nil, #""e1""#), templates: (nil, #""e1""#))
        _ = try await world.stage().run(world.pass)
        #expect(world.conditions(since: sent).values.allSatisfy { $0 == #""e1""# })
    }
}
