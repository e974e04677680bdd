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

/// Issue 17: an instant stored by JQCStorage is sent as `DateFormats.instantString` writes it, without being
/// read as a date.
@Suite("Stored instants rewritten as the POST body's instants (issue 17)")
struct StoredInstantTextTests {
    /// JQCStorage's stored form of `date` (UTC `yyyy-MM-dd HH:mm:ss.SSS`).
    static func stored(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter.string(from: date)
    }

    @Test("every millisecond of a second, month ends, leap days and far years give instantString's text")
    func sameAsInstantString() throws {
        var dates: [Date] = []
        let bases: [Double] = [1_784_000_000, 0, 951_782_400, 4_107_542_399, 253_402_300_799, 1_709_164_800 + 86_399]
        for base in bases {
            for millisecond in [0, 1, 499, 500, 501, 998, 999] {
                dates.append(Date(timeIntervalSince1970: base + Double(millisecond) / 1000))
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: 0..<253_402_300_799_999, using: &generator)
            dates.append(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }
        for date in dates {
            let text = Self.stored(date)
            let exact = try #require(InspectionPush.instantText(text), "\(text)")
            // The stored text names the instant to the millisecond: the same instant instantString is given.
            let instant = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
            #expect(exact == DateFormats.instantString(instant), "\(text)")
        }
    }

    @Test("another shape, a year before 1970 or a day or time out of range is left to the date reader")
    func otherTexts() {
        for text in [
            "2026-07-14 13:30:00", "2026-07-14T13:30:00.000", "2026-07-14 13:30:00.00Z", "1969-12-31 23:59:59.999",
            "2026-02-29 10:00:00.000", "2025-13-01 10:00:00.000", "2026-04-31 10:00:00.000", "2026-07-14 24:00:00.000",
            "2026-07-14 13:60:00.000", "2026-07-14 13:30:60.000", "2026-07-00 13:30:00.000", "2026-07-14 13:30:00.0a0",
            "+026-07-14 13:30:00.000", "",
        ] {
            #expect(InspectionPush.instantText(text) == nil, "\(text)")
        }
        #expect(InspectionPush.instantText("2024-02-29 23:59:59.999") == "2024-02-29T23:59:59Z")
    }
}
