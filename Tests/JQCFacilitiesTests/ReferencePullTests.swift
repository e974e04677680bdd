import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

@testable import JQCFacilities

/// A migrated store and an API client over a scripted transport, signed in.
struct ReferenceFixture {
    let directory = TemporaryDirectory(prefix: "jqc-facilities")
    let queue: DatabaseQueue
    let store: ReferenceStore
    let transport = ScriptedTransport()
    let api: APIClient
    let clock = ManualClock()

    init() throws {
        queue = try DatabaseQueue(path: directory.path("jqc.sqlite").path)
        var migrator = DatabaseMigrator()
        FacilitiesSchema.register(in: &migrator)
        try migrator.migrate(queue)
        store = ReferenceStore(queue: queue)
        let user = User(id: 7, username: "alex", role: .inspector)
        api = APIClient(
            config: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")), transport: transport,
            tokens: InMemoryTokenStore(Credentials(accessToken: "a", refreshToken: "r", user: user)),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "test"), clock: clock)
    }

    func stage(referenced: Set<Int> = []) -> ReferencePullStage {
        ReferencePullStage(api: api, store: store, referencedFacilityIDs: { _ in referenced })
    }

    var pass: SyncPass { SyncPass(isExplicit: true, clock: clock, classify: SyncFailure.classify) }

    /// Scripts one pull's three replies.
    func script(facilities: JSONValue, areas: JSONValue = [], templates: JSONValue = []) {
        transport.route(.get, path: "/api/v1/facilities", [.ok(facilities)])
        transport.route(.get, path: "/api/v1/areas", [.ok(areas)])
        transport.route(.get, path: "/api/v1/templates", [.ok(templates)])
    }
}

func facility(_ id: Int, _ name: String, project: Int = 1, active: Bool = true) -> JSONValue {
    [
        "id": .int(Int64(id)), "name": .string(name), "address": "1 Main St", "project_id": .int(Int64(project)),
        "project_name": .string("Contract \(project)"), "is_active": .bool(active),
    ]
}

let schemaWithSnakeKeys: JSONValue = [
    [
        "id": 1, "type": "table", "label": "Rooms", "row": 1, "col": 1, "colSpan": 12, "col_headers": ["A", "B"],
        "table_rows": 2,
    ]
]

@Suite("Reference pull (seed 001 §8 step 4)")
struct ReferencePullTests {
    @Test("the three collections are fetched one after another, and a facility repeated in the reply is stored once")
    func sequentialAndDeduplicated() async throws {
        let world = try ReferenceFixture()
        world.script(
            facilities: [
                facility(11, "Main"), facility(21, "Clinic A", project: 2), facility(21, "Clinic A", project: 2),
            ],
            areas: [["id": 111, "facility_id": 11, "name": "Lobby", "area_type": "lobby"]],
            templates: [
                [
                    "id": 3, "name": "Restroom QC", "description": "daily", "is_active": true,
                    "form_schema": schemaWithSnakeKeys,
                ]
            ])
        let report = try await world.stage().run(world.pass)
        #expect(
            world.transport.requests.map(\.url.path) == ["/api/v1/facilities", "/api/v1/areas", "/api/v1/templates"])
        #expect(report.pulled == 4)
        #expect(try world.store.facilities().map(\.id) == [21, 11])
        #expect(
            try world.store.contracts() == [Contract(id: 1, name: "Contract 1"), Contract(id: 2, name: "Contract 2")])
    }

    @Test("a template's schema is stored exactly as sent: col_headers and table_rows keep their snake_case keys")
    func schemaIsRaw() async throws {
        let world = try ReferenceFixture()
        world.script(
            facilities: [facility(11, "Main")],
            templates: [["id": 3, "name": "QC", "is_active": true, "form_schema": schemaWithSnakeKeys]])
        _ = try await world.stage().run(world.pass)
        let template = try #require(try world.store.template(id: 3))
        #expect(template.formSchema == schemaWithSnakeKeys)
        #expect(template.schemaHash.count == 16)
    }

    @Test("areas are related to their facility, and an area of an unknown facility is skipped")
    func areasRelated() async throws {
        let world = try ReferenceFixture()
        world.script(
            facilities: [facility(11, "Main")],
            areas: [["id": 111, "facility_id": 11, "name": "Lobby"], ["id": 999, "facility_id": 99, "name": "Ghost"]])
        _ = try await world.stage().run(world.pass)
        #expect(try world.store.areas(facilityID: 11).map(\.name) == ["Lobby"])
        #expect(try world.store.area(id: 999) == nil)
    }

    @Test("facilities not returned are pruned, except one still referenced by unsynced work, kept inactive and hidden")
    func pruneKeepsReferencedInactive() async throws {
        let world = try ReferenceFixture()
        world.script(facilities: [facility(11, "Main"), facility(12, "Annex"), facility(13, "Old", project: 3)])
        _ = try await world.stage().run(world.pass)
        world.script(facilities: [facility(11, "Main")])
        _ = try await world.stage(referenced: [13]).run(world.pass)
        #expect(try world.store.facility(id: 12) == nil)
        #expect(try world.store.facility(id: 13)?.isActive == false)
        #expect(try world.store.facilities().map(\.id) == [11])
        #expect(try world.store.contracts().map(\.id) == [1])
        world.script(facilities: [facility(11, "Main"), facility(13, "Old", project: 3)])
        _ = try await world.stage(referenced: [13]).run(world.pass)
        #expect(try world.store.facility(id: 13)?.isActive == true)
    }

    @Test("a failed areas request prunes nothing, and the read surface shows the cache as stale with the reason")
    func failedRefreshKeepsCache() async throws {
        let world = try ReferenceFixture()
        world.script(facilities: [facility(11, "Main"), facility(12, "Annex")])
        _ = try await world.stage().run(world.pass)
        world.transport.route(.get, path: "/api/v1/facilities", [.ok([facility(11, "Main")])])
        world.transport.route(.get, path: "/api/v1/areas", [.error(500, "database is down")])
        await #expect(throws: APIError.self) { try await world.stage().run(world.pass) }
        #expect(try world.store.facilities().map(\.id) == [12, 11])
        let loaded = try ReferenceDataService(store: world.store).facilities()
        #expect(loaded.phase == .content)
        #expect(loaded.staleReason == "The server had a problem (HTTP 500): database is down")
    }

    @Test("templates not returned are pruned and inactive ones are never offered")
    func templatesPrunedAndFiltered() async throws {
        let world = try ReferenceFixture()
        world.script(
            facilities: [facility(11, "Main")],
            templates: [
                ["id": 3, "name": "A", "is_active": true, "form_schema": []],
                ["id": 4, "name": "B", "is_active": true, "form_schema": []],
            ])
        _ = try await world.stage().run(world.pass)
        world.script(
            facilities: [facility(11, "Main")],
            templates: [["id": 3, "name": "A", "is_active": false, "form_schema": []]])
        _ = try await world.stage().run(world.pass)
        #expect(try world.store.template(id: 4) == nil)
        #expect(try world.store.templates(activeOnly: false).map(\.id) == [3])
        #expect(try world.store.templates().isEmpty)
    }

    @Test("before any refresh the read surfaces say loading; after a failed first refresh, failed")
    func phasesWithoutContent() async throws {
        let world = try ReferenceFixture()
        let service = ReferenceDataService(store: world.store)
        #expect(try service.templates().phase == .loading)
        world.transport.route(.get, path: "/api/v1/facilities", [.error(503, "maintenance")])
        await #expect(throws: APIError.self) { try await world.stage().run(world.pass) }
        #expect(try service.templates().phase == .failed)
        #expect(try service.templates().isStale == false)
    }

    @Test("clear cache empties facilities, areas and templates")
    func clearCache() async throws {
        let world = try ReferenceFixture()
        world.script(
            facilities: [facility(11, "Main")], areas: [["id": 111, "facility_id": 11, "name": "Lobby"]],
            templates: [["id": 3, "name": "A", "is_active": true, "form_schema": []]])
        _ = try await world.stage().run(world.pass)
        try ReferenceDataService(store: world.store).clearCache()
        #expect(try world.store.facilities(activeOnly: false).isEmpty)
        #expect(try world.store.area(id: 111) == nil)
        #expect(try world.store.templates(activeOnly: false).isEmpty)
    }
}
