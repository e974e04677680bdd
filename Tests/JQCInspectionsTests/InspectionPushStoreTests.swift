import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync
import Testing

@testable import JQCInspections

/// Issue 17: the push reads each pending inspection with its POST body written from the row (the stored
/// `form_data` sent as it stands when it can be) and its photo gate's answer, in one read; the reply's id is
/// required.
@Suite("Inspections push: bodies from the row, replies read for their id (issue 17)")
struct InspectionPushStoreTests {
    func submitted(
        _ world: InspectionFixture, formData: [String: JSONValue] = [:], area: Int? = 111,
        location: Coordinate? = nil
    ) throws -> Inspection {
        let draft = try world.answeredDraft(area: area)
        if !formData.isEmpty {
            try world.service.save(localID: draft.localID, formData: draft.formData.merging(formData) { $1 })
        }
        world.clock.advance(by: 1)
        return try world.service.submit(localID: draft.localID, location: location).inspection
    }

    func items(_ world: InspectionFixture, waiting: Set<String> = []) throws -> [InspectionPush] {
        try world.store.pendingPushItems { localID, _ in waiting.contains(localID) ? "waits for its photos" : nil }
    }

    @Test("each body is byte for byte the payload's bytes, in the push list's order, with the gate's answers")
    func bodiesAreThePayload() throws {
        let world = try InspectionFixture()
        let plain = try submitted(world)
        let located = try submitted(
            world, formData: ["3": "Needs \"work\"\n\tnow", "7": ["row": ["note": "Café ✓"]]], area: nil,
            location: Coordinate(latitude: -33.8688, longitude: 151.2093))
        let sentinel = try submitted(world, formData: ["4": "local:///tmp/p.jpg", "5": ["local://x", "kept"]])
        try world.queue.write { db in
            try db.execute(
                "UPDATE inspections SET notes = ?, parent_inspection_server_id = 501, scheduled_inspection_server_id = 901 WHERE local_id = ?",
                ["Back door \\ \"B\"", plain.localID])
        }
        let items = try items(world, waiting: [located.localID])
        let inspections = try world.store.pendingPushes()
        #expect(items.map(\.localID) == [plain.localID, located.localID, sentinel.localID])
        #expect(items.map(\.localID) == inspections.map(\.localID))
        #expect(items.map(\.outbox) == inspections.map(\.outbox))
        #expect(items.map(\.photoWaitReason) == [nil, "waits for its photos", nil])
        for (item, inspection) in zip(items, inspections) {
            #expect(item.body == InspectionPushStage.payload(for: inspection).jsonData(), "\(inspection.localID)")
        }
        let withSentinel = try JSONValue.parse(try #require(items.last).body)
        #expect(withSentinel["form_data"]?["4"] == "")
        #expect(withSentinel["form_data"]?["5"] == ["", "kept"])
        let first = try JSONValue.parse(try #require(items.first).body)
        #expect(first["parent_inspection_id"] == 501)
        #expect(first["scheduled_inspection_id"] == 901)
        #expect(first["notes"] == "Back door \\ \"B\"")
    }

    @Test("stored answers not in the written form still give the payload's JSON value, local:// stripped")
    func unusualStoredAnswers() throws {
        let world = try InspectionFixture()
        let inspection = try submitted(world)
        let stored = [
            #" { "2" : "4" , "3":"Pass" } "#, #"{"2":"4","2":"5"}"#, #"{"2":"\u006cocal://p.jpg","3":"x\/y"}"#,
            #"{"2":1E2,"3":12345678901234567890}"#, #"{"7":{"a":[{"b":"local://q.jpg"}]}}"#, "not json", "[1,2]", "",
            #"{"2":0.10,"3":-0}"#,
        ]
        for text in stored {
            try world.queue.write { db in
                try db.execute("UPDATE inspections SET form_data = ? WHERE local_id = ?", [text, inspection.localID])
            }
            let item = try #require(try items(world).first)
            let expected = InspectionPushStage.payload(for: try #require(try world.store.pendingPushes().first))
            #expect(try JSONValue.parse(item.body) == expected, "\(text)")
        }
    }

    @Test("a success stores the id read from the reply; the body sent is the item's")
    func successStoresID() async throws {
        let world = try InspectionFixture()
        let inspection = try submitted(world)
        world.transport.route(
            .post, path: "/api/v1/inspections",
            [.reply(201, #"{"ok":true,"data":{"id":3001,"local_id":"local-1","form_data":{"2":"4"}},"error":null}"#)])
        let report = try await world.stage().run(world.pass())
        #expect(report.pushed == 1)
        #expect(try world.service.inspection(localID: inspection.localID).serverID == 3001)
        let sent = try #require(world.transport.requests(path: "/api/v1/inspections").first)
        #expect(sent.body == .data(InspectionPushStage.payload(for: inspection).jsonData()))
    }

    @Test(
        "a reply without a valid id is a failure: the item stays pending, one try counted, no server id",
        arguments: [
            (#"{"ok":true,"data":{"local_id":"local-1"}}"#, "data.id: the member is missing"),
            (#"{"ok":true,"data":{"id":"3001"}}"#, "data.id: expected an integer, got a string"),
            (#"{"ok":true,"data":null}"#, "data: expected an object, got null"),
        ])
    func replyWithoutID(_ reply: String, _ problem: String) async throws {
        let world = try InspectionFixture()
        let inspection = try submitted(world)
        world.transport.route(.post, path: "/api/v1/inspections", [.reply(201, reply)])
        let report = try await world.stage().run(world.pass())
        #expect(report.pushed == 0)
        #expect(report.deferred == 1)
        let stored = try world.service.inspection(localID: inspection.localID)
        #expect(stored.syncStatus == .pending)
        #expect(stored.serverID == nil)
        #expect(stored.syncAttempts == 1)
        #expect(stored.syncError == APIError.undecodable(problem).message)
    }
}
