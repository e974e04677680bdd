import Foundation
import JQCForms
import JQCKit
import JQCStorage
import Synchronization
import Testing

@testable import JQCInspections

/// Records the photo-field clearing hook's calls; fails when told to.
final class ClearingHook: InspectionPhotoFieldClearingHook {
    let calls = Mutex<[String]>([])
    let failing: Bool
    init(failing: Bool = false) { self.failing = failing }
    func photoFieldClearing(localID: String, fieldID: String, db: Database) throws {
        expectInside(db.isInsideTransaction)
        calls.withLock { $0.append("clearing \(localID) \(fieldID)") }
        if failing { throw InspectionsError(.storage, "hook refused") }
    }
    func photoFieldCleared(localID: String, fieldID: String) {
        calls.withLock { $0.append("cleared \(localID) \(fieldID)") }
    }
    var all: [String] { calls.withLock { $0 } }
}

@Suite("Answer and save at the floor (issue 17): typed answers, the schema cache, answer-row round trips")
struct InspectionAnswerStoreTests {
    func code(_ body: () throws -> Void) -> InspectionsError.Kind? {
        do {
            try body()
            return nil
        } catch let error as InspectionsError {
            return error.kind
        } catch {
            return nil
        }
    }

    /// The stored text of a draft's answers: its `form_data` and its rows of `inspection_answers`, in key order.
    func storedText(_ world: InspectionFixture, _ localID: String) throws -> String {
        try world.queue.read { db in
            let inline: String = try db.scalar("SELECT form_data FROM inspections WHERE local_id = ?", [localID]) ?? ""
            let rows: String =
                try db.scalar(
                    "SELECT ';' || group_concat(field_id || '=' || value, ';') || ';' FROM (SELECT field_id, value "
                        + "FROM inspection_answers WHERE \(InspectionAnswerRowsStoreTests.ofDraft) ORDER BY field_id)",
                    [localID]) ?? ""
            return inline + "|" + rows
        }
    }

    @Test("typed values go through InspectionService.answer; the wrong kind, a photo field and non-drafts refused")
    func typedAnswers() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        #expect(try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(4)) == "4")
        #expect(try world.service.answer(localID: draft.localID, fieldID: "3", value: .option("FAIL")) == "Fail")
        #expect(try world.service.answer(localID: draft.localID, fieldID: "5", value: .text("Mop")) == "Mop")
        #expect(
            code { try world.service.answer(localID: draft.localID, fieldID: "2", value: .bool(true)) }
                == .invalidAnswer)
        #expect(
            code { try world.service.answer(localID: draft.localID, fieldID: "4", value: .text("x.jpg")) }
                == .invalidAnswer)
        #expect(
            code { try world.service.answer(localID: draft.localID, fieldID: "42", value: .text("x")) }
                == .invalidAnswer)
        #expect(code { try world.service.answer(localID: "nope", fieldID: "2", value: .rating(1)) } == .notFound)
        #expect(try world.service.inspection(localID: draft.localID).formData == ["2": "4", "3": "Fail", "5": "Mop"])
        #expect(try world.service.answer(localID: draft.localID, fieldID: "5", value: .clear) == nil)
        _ = try world.service.submit(localID: draft.localID)
        #expect(
            code { try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(1)) } == .notADraft)
        #expect(code { try world.service.save(localID: draft.localID) } == .notADraft)
        #expect(code { try world.service.save(localID: "nope") } == .notFound)
        #expect(try world.service.inspection(localID: draft.localID).formData == ["2": "4", "3": "Fail"])
    }

    @Test(
        "the schema cache is keyed by the pinned hash: a new template version gets a new entry, old drafts keep theirs")
    func cacheByHash() throws {
        let world = try InspectionFixture()
        let old = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        try world.service.answer(localID: old.localID, fieldID: "2", arguments: ["3"])
        let oldHash = FormSchema(json: restroomSchema).hash
        #expect(world.service.schemaCache.hashes == [oldHash])
        guard case .array(var fields) = restroomSchema else { throw InspectionsError(.storage, "schema") }
        fields.append(["id": 6, "type": "rating", "label": "Mirrors", "row": 4, "col": 1])
        let newSchema = JSONValue.array(fields)
        try world.seedReference(schema: newSchema)
        let new = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        #expect(new.schemaHash == FormSchema(json: newSchema).hash)
        try world.service.answer(localID: new.localID, fieldID: "6", value: .rating(2))
        #expect(world.service.schemaCache.hashes == [oldHash, new.schemaHash])
        // The old draft is still answered on the schema it pinned: it has no field 6.
        #expect(
            code { try world.service.answer(localID: old.localID, fieldID: "6", value: .rating(2)) } == .invalidAnswer)
        try world.service.answer(localID: old.localID, fieldID: "2", value: .rating(5))
        #expect(world.service.schemaCache.hashes == [new.schemaHash, oldHash])  // the old one used last; still two
        #expect(try world.service.inspection(localID: old.localID).formData == ["2": "5"])
        #expect(try world.service.inspection(localID: new.localID).formData == ["6": "2"])
    }

    @Test(
        "the short read answers only a draft with its answers in rows: another schema hash, another status, answers in form_data"
    )
    func shortRead() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let other = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(3))
        // The short read: the same row as the full path writes.
        #expect(try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(4)) == "4")
        #expect(
            try world.service.answer(localID: draft.localID, fieldID: "5", arguments: ["Mop", "marks"]) == "Mop marks")
        #expect(try storedText(world, draft.localID) == "|;2=\"4\";5=\"Mop marks\";")
        // Refusals: nothing is written.
        #expect(
            code { try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(9)) } == .invalidAnswer
        )
        #expect(
            code { try world.service.answer(localID: draft.localID, fieldID: "42", value: .rating(1)) }
                == .invalidAnswer)

        // The row now pinned to another schema, where field 2 is text: the one cached first would take a rating.
        guard case .array(var fields) = restroomSchema else { throw InspectionsError(.storage, "schema") }
        fields[1] = ["id": 2, "type": "text", "label": "Floors note", "row": 2, "col": 1, "colSpan": 6]
        let textSchema = JSONValue.array(fields)
        let textHash = FormSchema(json: textSchema).hash
        try world.queue.write { db in
            try db.execute(
                "UPDATE inspections SET schema_hash = ?, schema_snapshot = ? WHERE local_id = ?",
                [textHash, textSchema.jsonString(), draft.localID])
        }
        #expect(
            code { try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(5)) } == .invalidAnswer
        )
        #expect(try storedText(world, draft.localID) == "|;2=\"4\";5=\"Mop marks\";")
        #expect(try world.service.answer(localID: draft.localID, fieldID: "2", arguments: ["Dry"]) == "Dry")
        #expect(world.service.schemaCache.hashes == [draft.schemaHash, textHash])

        // Not a draft any more (its answers still rows): refused, nothing written.
        try world.service.answer(localID: other.localID, fieldID: "2", value: .rating(1))
        try world.queue.write { db in
            try db.execute("UPDATE inspections SET status = 'completed' WHERE local_id = ?", [other.localID])
        }
        #expect(
            code { try world.service.answer(localID: other.localID, fieldID: "2", value: .rating(2)) } == .notADraft)
        #expect(try storedText(world, other.localID) == "|;2=\"1\";")

        // Answers back in `form_data` (a row as written before `inspections/4-answers`): moved first, none lost.
        try world.queue.write { db in
            try db.execute(
                "UPDATE inspections SET status = 'draft', form_data = '{\"3\":\"Fail\"}' WHERE local_id = ?",
                [other.localID])
            try db.execute(
                "DELETE FROM inspection_answers WHERE \(InspectionAnswerRowsStoreTests.ofDraft)", [other.localID])
        }
        try world.service.answer(localID: other.localID, fieldID: "2", value: .rating(2))
        #expect(try storedText(world, other.localID) == "|;2=\"2\";3=\"Fail\";")
        #expect(try world.service.inspection(localID: other.localID).formData == ["2": "2", "3": "Fail"])
    }

    @Test(
        "answers round-trip exactly through their rows: integers stay integers, 4.0 a double, tables and arrays intact")
    func roundTrip() throws {
        let world = try InspectionFixture()
        let prefill: [String: JSONValue] = [
            "5": "Wiped \"down\" — é \\ / \u{1F9F9}", "count": 7, "ratio": 4.0, "big": .int(Int64.max), "tiny": 1.5e-7,
            "table": [
                ["Item": "Towels", "Count": 12, "Reorder?": false], ["Item": "Soap", "Count": 2.5, "Reorder?": nil],
            ],
            "nested": ["a": [1, [2, ["b": "c"]], nil, true], "empty": [:], "list": []],
        ]
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: prefill))
        try world.service.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        try world.service.answer(localID: draft.localID, fieldID: "3", value: .option("pass"))
        var expected = prefill
        expected["2"] = "4"
        expected["3"] = "Pass"
        let stored = try world.service.inspection(localID: draft.localID).formData
        #expect(stored == expected)
        #expect(stored["ratio"] == .double(4.0))
        #expect(stored["count"] == .int(7))
        #expect(stored["big"] == .int(Int64.max))
        let text = try storedText(world, draft.localID)
        #expect(text.hasPrefix("|"))  // a draft's form_data is '': its answers are rows
        #expect(text.contains(";ratio=4.0;") && text.contains(";count=7;") && text.contains(";2=\"4\";"), "\(text)")
        // A clear removes only its key.
        try world.service.answer(localID: draft.localID, fieldID: "5", arguments: [""])
        expected["5"] = nil
        #expect(try world.service.inspection(localID: draft.localID).formData == expected)
    }

    @Test("save re-saves what is stored: the answers untouched byte for byte, updated_at moves")
    func saveTouchesOnly() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(
            StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["2": "4", "x": 4.0]))
        let before = try storedText(world, draft.localID)
        world.clock.advance(by: 60)
        try world.service.save(localID: draft.localID)
        #expect(try storedText(world, draft.localID) == before)
        #expect(before == "|;2=\"4\";x=4.0;")
        let saved = try world.service.inspection(localID: draft.localID)
        #expect(saved.updatedAt == world.clock.now)
        #expect(saved.updatedAt > draft.updatedAt)
        try world.service.save(localID: draft.localID, formData: ["2": "1"])
        #expect(try world.service.inspection(localID: draft.localID).formData == ["2": "1"])
    }

    @Test("a table cell is written over the stored rows, read from its answer row")
    func tableCell() throws {
        let schema: JSONValue = [
            ["id": 2, "type": "rating", "label": "Floors", "row": 1, "col": 1, "required": true],
            ["id": 3, "type": "pass_fail", "label": "Soap", "row": 1, "col": 7, "required": true],
            [
                "id": 7, "type": "table", "label": "Supplies", "row": 2, "col": 1, "col_headers": ["Item", "Count"],
                "table_rows": 2,
            ],
        ]
        let world = try InspectionFixture()
        try world.seedReference(schema: schema)
        let draft = try world.service.start(
            StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["7": [["Item": "Towels", "Count": 3]]]))
        let stored = try world.service.answer(
            localID: draft.localID, fieldID: "7", value: .tableCell(row: 2, column: "item", text: "Soap"))
        let expected: JSONValue = [["Item": "Towels", "Count": 3], ["Item": "Soap", "Count": ""]]
        #expect(stored == expected)
        #expect(try world.service.inspection(localID: draft.localID).formData["7"] == expected)
    }

    @Test("a form_data that is not a JSON object is replaced by one holding the answer, never an error")
    func malformedFormData() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        for text in ["not json", "[1,2]", "{not json"] {
            try world.queue.write { db in
                try db.execute("UPDATE inspections SET form_data = ? WHERE local_id = ?", [text, draft.localID])
            }
            try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(3))
            #expect(try world.service.inspection(localID: draft.localID).formData == ["2": "3"], "\(text)")
        }
    }

    @Test("clearing an image field calls the clearing hooks in its transaction; a failing hook keeps the answer")
    func photoFieldClearing() throws {
        let world = try InspectionFixture()
        let hook = ClearingHook()
        world.service.register(photoFieldClearingHook: hook)
        let draft = try world.service.start(
            StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["4": "local://photos/a.jpg", "5": "x"]))
        try world.service.answer(localID: draft.localID, fieldID: "5", arguments: [""])  // not a photo field
        #expect(hook.all.isEmpty)
        try world.service.clearPhoto(localID: draft.localID, fieldID: "4")
        #expect(hook.all == ["clearing \(draft.localID) 4", "cleared \(draft.localID) 4"])
        #expect(try world.service.inspection(localID: draft.localID).formData.isEmpty)
        #expect(code { try world.service.clearPhoto(localID: draft.localID, fieldID: "2") } == .invalidAnswer)

        let failing = try InspectionFixture()
        let refusing = ClearingHook(failing: true)
        failing.service.register(photoFieldClearingHook: refusing)
        let kept = try failing.service.start(
            StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["4": "local://photos/b.jpg"]))
        #expect(code { try failing.service.answer(localID: kept.localID, fieldID: "4", arguments: [""]) } == .storage)
        #expect(refusing.all == ["clearing \(kept.localID) 4"])
        #expect(try failing.service.inspection(localID: kept.localID).formData == ["4": "local://photos/b.jpg"])
    }

    @Test("a pinned schema is stored once per hash, outside the row; a row with its own snapshot still reads it")
    func pinnedSchemaOutsideTheRow() throws {
        let world = try InspectionFixture()
        let first = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let second = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let (inline, shared): ([String], Int) = try world.queue.read { db in
            (
                try db.fetchAll("SELECT schema_snapshot FROM inspections ORDER BY rowid").compactMap {
                    $0["schema_snapshot"]
                },
                try db.scalar("SELECT count(*) FROM inspection_schemas WHERE schema_hash = ?", [first.schemaHash]) ?? 0
            )
        }
        #expect(inline == ["", ""])
        #expect(shared == 1)
        #expect(try world.service.inspection(localID: second.localID).schemaSnapshot == restroomSchema)
        #expect(try world.store.all().map(\.schemaSnapshot) == [restroomSchema, restroomSchema])
        // A row written before (or with a hash that is not its schema's) keeps the snapshot in the row.
        var legacy = first
        legacy.localID = "legacy"
        legacy.schemaHash = ""
        try world.queue.write { db in try world.store.insert(db, legacy) }
        let text: String? = try world.queue.read { db in
            try db.scalar("SELECT schema_snapshot FROM inspections WHERE local_id = 'legacy'")
        }
        #expect(text == restroomSchema.jsonString())
        #expect(try world.service.inspection(localID: "legacy").schemaSnapshot == restroomSchema)
        try world.service.answer(localID: "legacy", fieldID: "2", value: .rating(2))
        #expect(try world.service.inspection(localID: "legacy").formData["2"] == "2")
    }
}
