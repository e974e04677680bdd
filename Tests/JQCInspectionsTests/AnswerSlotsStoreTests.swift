import Foundation
import JQCFacilities
import JQCKit
import JQCStorage
import Testing

@testable import JQCInspections

/// Answer slots (issue 17; migration `inspections/8-answer-slots`): each answer row's rowid is its draft's key ×
/// 65,536 + the field's place — the id itself for a plain decimal below 32,768, else a place from 32,768 up (in
/// the order of the ids' text when a whole set is written, the next free one for a single new id) — so an answer
/// searches integer keys and writes over its row in place.
@Suite("Answer slots (issue 17): where each answer row sits")
struct AnswerSlotsStoreTests {
    /// The answer rows of one draft: field id → slot − key × 65,536.
    static func places(_ world: InspectionFixture, _ localID: String) throws -> [String: Int64] {
        try world.queue.read { db in
            let key: Int64 = try #require(
                try db.scalar("SELECT answers_key FROM inspections WHERE local_id = ?", [localID]))
            var places: [String: Int64] = [:]
            for row in try db.fetchAll(
                "SELECT field_id, slot FROM inspection_answers WHERE answers_key = ?", [key])
            {
                let slot: Int64 = row["slot"] ?? -1
                places[row["field_id"] ?? ""] = slot - key * 65_536
            }
            return places
        }
    }

    /// The `answers_key` of one inspection.
    static func key(_ world: InspectionFixture, _ localID: String) throws -> Int64? {
        try world.queue.read { db in
            try db.scalar("SELECT answers_key FROM inspections WHERE local_id = ?", [localID])
        }
    }

    /// A form of a rating `2` and two text fields whose ids have no fixed place (`notes`, `40000`).
    static let schema: JSONValue = [
        ["id": 2, "type": "rating", "label": "Floors", "row": 1, "col": 1, "required": true],
        ["id": "notes", "type": "text", "label": "Notes", "row": 2, "col": 1],
        ["id": "40000", "type": "text", "label": "Remarks", "row": 3, "col": 1],
    ]

    @Test("a fixed place is a plain decimal below 32,768; nothing else has one")
    func fixedPlaces() {
        let places: [String: Int64?] = [
            "0": 0, "5": 5, "32767": 32_767, "32768": nil, "05": nil, "-1": nil, "x": nil, "": nil, "1e3": nil,
            "٣": nil, "5 ": nil, "123456": nil,
        ]
        for (id, place) in places { #expect(InspectionStore.fixedPlace(id) == place, "\(id)") }
    }

    @Test("an answer sits at its field's place: re-answers keep it, one statement for a fixed place, a clear frees it")
    func answersSitAtTheirPlaces() throws {
        let world = try InspectionFixture()
        try world.seedReference(schema: Self.schema)
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(4))
        try world.service.answer(localID: draft.localID, fieldID: "notes", arguments: ["Mopped"])
        try world.service.answer(localID: draft.localID, fieldID: "40000", arguments: ["Dry"])
        #expect(try Self.places(world, draft.localID) == ["2": 2, "notes": 32_768, "40000": 32_769])
        // Answered again: the fixed place by one statement, the others by the full path; every place kept.
        let oneStatement = world.service.oneStatementAnswers.load(ordering: .relaxed)
        try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(5))
        #expect(world.service.oneStatementAnswers.load(ordering: .relaxed) == oneStatement + 1)
        try world.service.answer(localID: draft.localID, fieldID: "notes", arguments: ["Mopped", "twice"])
        #expect(world.service.oneStatementAnswers.load(ordering: .relaxed) == oneStatement + 1)
        try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(3))
        #expect(world.service.oneStatementAnswers.load(ordering: .relaxed) == oneStatement + 2)
        #expect(try Self.places(world, draft.localID) == ["2": 2, "notes": 32_768, "40000": 32_769])
        #expect(
            try world.service.inspection(localID: draft.localID).formData
                == ["2": "3", "notes": "Mopped twice", "40000": "Dry"])
        // A clear frees the place; the id answered again takes the next one above the others.
        try world.service.answer(localID: draft.localID, fieldID: "notes", value: .clear)
        #expect(try Self.places(world, draft.localID) == ["2": 2, "40000": 32_769])
        #expect(try world.service.inspection(localID: draft.localID).formData == ["2": "3", "40000": "Dry"])
        try world.service.answer(localID: draft.localID, fieldID: "notes", arguments: ["Again"])
        #expect(try Self.places(world, draft.localID) == ["2": 2, "40000": 32_769, "notes": 32_770])
        // When the places above the others run out (after many clears), a new id takes the lowest free one.
        let key: Int64 = try #require(try AnswerSlotsStoreTests.key(world, draft.localID))
        try world.queue.write { db in
            try db.execute(
                "INSERT INTO inspection_answers (slot, answers_key, field_id, value) VALUES (?, ?, 'zz', '\"z\"')",
                [key * 65_536 + 65_535, key])
        }
        try world.service.answer(localID: draft.localID, fieldID: "notes", value: .clear)
        try world.service.answer(localID: draft.localID, fieldID: "notes", arguments: ["Again"])
        #expect(try Self.places(world, draft.localID) == ["2": 2, "40000": 32_769, "notes": 32_768, "zz": 65_535])
        // One answer read by its slot: an id without a fixed place found by its row; no row, no answer.
        let cases: [(String, JSONValue?)] = [("notes", "Again"), ("2", "3"), ("missing", .none), ("7", .none)]
        for (field, expected) in cases {
            let stored = try world.queue.read { db in
                try world.store.answer(db, localID: draft.localID, fieldID: field)
            }
            #expect(stored == expected, "\(field)")
        }
    }

    @Test(
        "a whole set of answers takes the ids without a fixed place in the order of their text; submit drops them all")
    func wholeSetPlaces() throws {
        let world = try InspectionFixture()
        try world.seedReference(schema: Self.schema)
        let answers: [String: JSONValue] = ["2": "4", "x": 4.0, "notes": "a", "40000": "b", "05": 5]
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: answers))
        #expect(
            try Self.places(world, draft.localID)
                == ["2": 2, "05": 32_768, "40000": 32_769, "notes": 32_770, "x": 32_771])
        let read = try world.service.inspection(localID: draft.localID).formData
        #expect(read == answers && read["x"] == .double(4.0) && read["05"] == .int(5))
        try world.service.save(localID: draft.localID, formData: ["notes": "b", "2": "1"])
        #expect(try Self.places(world, draft.localID) == ["2": 2, "notes": 32_768])
        // One draft's rows never reach another's, whatever their ids.
        let other = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: answers))
        #expect(try world.service.inspection(localID: draft.localID).formData == ["notes": "b", "2": "1"])
        #expect(try world.service.inspection(localID: other.localID).formData == answers)
        try world.service.deleteDraft(localID: other.localID)
        let rows: Int? = try world.queue.read { db in try db.scalar("SELECT count(*) FROM inspection_answers") }
        #expect(rows == 2)
    }

    @Test("migration 8 puts every row of the keyed layout at its slot: every answer kept, exactly")
    func slotsMigrationKeepsEveryAnswer() throws {
        let world = try InspectionFixture()
        let answers: [String: JSONValue] = [
            "2": "4", "x": 4.0, "notes": "a", "40000": "b", "05": 5, "big": .int(Int64.max),
            "table": [["Item": "Towels", "Count": 12, "Reorder?": nil]],
        ]
        let first = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: answers))
        world.clock.advance(by: 30)
        let second = try world.answeredDraft()
        let empty = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let before = try world.store.all()
        // The layout before: rows keyed by (answers_key, field_id), as migration 7 left them.
        try world.queue.write { db in
            let rows = try db.fetchAll("SELECT answers_key, field_id, value, answered_at FROM inspection_answers")
            try db.execute("DROP TABLE inspection_answers")
            try db.execute(
                """
                CREATE TABLE inspection_answers (
                    answers_key INTEGER NOT NULL, field_id TEXT NOT NULL, value TEXT NOT NULL, answered_at INTEGER,
                    PRIMARY KEY (answers_key, field_id)
                ) WITHOUT ROWID
                """)
            for row in rows {
                try db.execute(
                    "INSERT INTO inspection_answers VALUES (?, ?, ?, ?)",
                    [
                        row["answers_key"] as Int64?, row["field_id"] as String?, row["value"] as String?,
                        row["answered_at"] as Int64?,
                    ])
            }
            // A row of a key no inspection holds, its time as text: carried as stored, seen by no draft.
            try db.execute("INSERT INTO inspection_answers VALUES (999, 'x', '\"kept\"', '2026-12-07 06:00:00.000')")
            try db.execute("DELETE FROM jqc_migrations WHERE key = 'inspections/8-answer-slots'")
        }
        var migrator = DatabaseMigrator()
        FacilitiesSchema.register(in: &migrator)
        InspectionsSchema.register(in: &migrator)
        #expect(try migrator.migrate(world.queue) == ["inspections/8-answer-slots"])

        #expect(try world.store.all() == before)
        #expect(try world.service.inspection(localID: first.localID).formData == answers)
        #expect(
            try Self.places(world, first.localID)
                == [
                    "2": 2, "05": 32_768, "40000": 32_769, "big": 32_770, "notes": 32_771, "table": 32_772,
                    "x": 32_773,
                ])
        #expect(try Self.places(world, second.localID) == ["2": 2, "3": 3])
        #expect(try Self.places(world, empty.localID).isEmpty)
        let stray = try world.queue.read { db in
            try db.fetchOne(
                "SELECT slot, value, typeof(answered_at) AS type FROM inspection_answers WHERE answers_key = 999")
        }
        let strayRow = try #require(stray)
        let (straySlot, strayValue, strayType): (Int64?, String?, String?) =
            (strayRow["slot"], strayRow["value"], strayRow["type"])
        let expectedSlot: Int64 = 999 * 65_536 + 32_768
        #expect(straySlot == expectedSlot)
        #expect(strayValue == "\"kept\"" && strayType == "text")
        // A writer of the old layout (no slot) is refused, not given a slot in some draft's range.
        let secondKey = try #require(try Self.key(world, second.localID))
        #expect(throws: DatabaseError.self) {
            try world.queue.write { db in
                try db.execute(
                    """
                    INSERT OR REPLACE INTO inspection_answers (answers_key, field_id, value, answered_at)
                    VALUES (?, '2', '"9"', NULL)
                    """, [secondKey])
            }
        }
        // The drafts take answers as before.
        try world.service.answer(localID: second.localID, fieldID: "2", value: .rating(1))
        try world.service.answer(localID: empty.localID, fieldID: "2", value: .rating(3))
        #expect(try world.service.inspection(localID: second.localID).formData["2"] == "1")
        #expect(try world.service.inspection(localID: empty.localID).formData == ["2": "3"])
        #expect(try Self.places(world, second.localID) == ["2": 2, "3": 3])
    }
}
