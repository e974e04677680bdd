import Foundation
import JQCFacilities
import JQCForms
import JQCKit
import JQCStorage
import Testing

@testable import JQCInspections

/// A draft's answers as rows of `inspection_answers` (issue 17, "Local writes at the floor"; migration
/// `inspections/4-answers`): one answer writes one small row whatever the form's size, every reader sees the
/// answers as before, submit folds them back into `form_data`, and a store of the old layout keeps every one.
@Suite("Answers as rows (issue 17): inspection_answers, its migration, its readers")
struct InspectionAnswerRowsStoreTests {
    /// A schema of `count` rating fields with ids 1000…, two to a row.
    static func ratingSchema(_ count: Int) -> JSONValue {
        var fields: [JSONValue] = []
        for index in 0..<count {
            var field: [String: JSONValue] = ["type": "rating", "colSpan": 6]
            field["id"] = .int(Int64(1_000 + index))
            field["label"] = .string("Item \(index + 1)")
            field["row"] = .int(Int64(index / 2 + 1))
            field["col"] = .int(index % 2 == 0 ? 1 : 7)
            fields.append(.object(field))
        }
        return .array(fields)
    }

    /// The condition on `inspection_answers` for one inspection's rows (one placeholder: its local id).
    static let ofDraft = "answers_key = (SELECT answers_key FROM inspections WHERE local_id = ?)"

    /// The answer rows of one inspection: field id → stored JSON text.
    static func rows(_ world: InspectionFixture, _ localID: String) throws -> [String: String] {
        try world.queue.read { db in
            var rows: [String: String] = [:]
            for row in try db.fetchAll(
                "SELECT field_id, value FROM inspection_answers WHERE \(InspectionAnswerRowsStoreTests.ofDraft)",
                [localID])
            {
                rows[row["field_id"] ?? ""] = row["value"] ?? ""
            }
            return rows
        }
    }

    /// The row's own `form_data` text.
    static func formDataText(_ world: InspectionFixture, _ localID: String) throws -> String? {
        try world.queue.read { db in
            try db.scalar("SELECT form_data FROM inspections WHERE local_id = ?", [localID])
        }
    }

    /// The WAL frames (pages) written by `body`, from an empty WAL.
    static func pagesWritten(_ queue: DatabaseQueue, _ body: () throws -> Void) throws -> Int {
        try queue.writeWithoutTransaction { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        try body()
        let row = try queue.writeWithoutTransaction { db in try db.fetchOne("PRAGMA wal_checkpoint(PASSIVE)") }
        return try #require(row?["log"] as Int?)
    }

    @Test("one answer of a 1,000-field draft writes one page, as a 10-field one: its answer row")
    func costIndependentOfFormSize() throws {
        var pages: [Int: Int] = [:]
        for size in [10, 1_000] {
            let world = try InspectionFixture()
            try world.seedReference(schema: Self.ratingSchema(size))
            let answers = Dictionary(
                uniqueKeysWithValues: (0..<size).map { (String(1_000 + $0), JSONValue.string("3")) })
            let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: answers))
            try world.service.answer(localID: draft.localID, fieldID: "1005", value: .rating(4))  // schema cached
            _ = try Self.pagesWritten(world.queue) {}  // the WAL emptied once before measuring
            // The fewest pages of three answers: a row that outgrows its leaf page now and then splits it (3-4 pages
            // once), which says nothing of the form's size.
            var fewest = Int.max
            for field in ["1007", "1009", "1008"] {
                world.clock.advance(by: 1)  // a new answered_at (SQLite does not rewrite a page whose bytes stay)
                fewest = min(
                    fewest,
                    try Self.pagesWritten(world.queue) {
                        try world.service.answer(localID: draft.localID, fieldID: field, value: .rating(5))
                    })
            }
            pages[size] = fewest
            #expect(try Self.formDataText(world, draft.localID) == "")
            let stored = try world.service.inspection(localID: draft.localID).formData
            #expect(stored.count == size)
            #expect(stored["1005"] == "4" && stored["1007"] == "5" && stored["1006"] == "3")
        }
        #expect(pages[10] == 1, "\(pages)")
        #expect(pages[1_000] == 1, "\(pages)")
    }

    @Test(
        "answers written whole carry their time, so re-answering every field of a 1,000-field draft writes one page each"
    )
    func rowsWrittenWholeAreFullSize() throws {
        let world = try InspectionFixture()
        try world.seedReference(schema: Self.ratingSchema(1_000))
        let answers = Dictionary(uniqueKeysWithValues: (0..<1_000).map { (String(1_000 + $0), JSONValue.int(3)) })
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: answers))
        #expect(try Self.rowsWithoutTime(world, draft.localID) == 0)
        try world.service.answer(localID: draft.localID, fieldID: "1000", value: .rating(4))  // schema cached
        world.clock.advance(by: 1)
        // Ten batches of 100, each from an empty WAL: every answer rewrites its cell at the same size, one page.
        // A few pages more (a key held by an interior page moves down to a leaf: 1,026-1,045 pages seen) but not
        // the splits of rows written without `answered_at`, each grown by a timestamp (1,249 pages seen).
        var pages: [Int] = []
        for batch in 0..<10 {
            pages.append(
                try Self.pagesWritten(world.queue) {
                    for field in (batch * 100)..<(batch * 100 + 100) {
                        try world.service.answer(
                            localID: draft.localID, fieldID: String(1_000 + field), value: .rating(5))
                    }
                })
        }
        #expect(pages.reduce(0, +) <= 1_100, "\(pages)")
        #expect(pages.allSatisfy { $0 >= 100 }, "\(pages)")
        // A whole save writes full rows too (a migrated draft: migrationKeepsEveryAnswer).
        world.clock.advance(by: 1)
        try world.service.save(localID: draft.localID, formData: answers)
        #expect(try Self.rowsWithoutTime(world, draft.localID) == 0)
        let saved = try world.service.inspection(localID: draft.localID)
        #expect(saved.updatedAt == world.clock.now && saved.formData == answers)
    }

    @Test("answer times are INTEGER milliseconds; migration 6 turns each stored text time into the same millisecond")
    func answerTimesAreMilliseconds() throws {
        let world = try InspectionFixture()
        world.clock.advance(by: 0.978)
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["5": "x"]))
        let started = world.clock.now
        world.clock.advance(by: 61.25)
        try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(4))
        let answered = world.clock.now
        var times = try Self.times(world, draft.localID)
        #expect(times["2"]?.type == "integer" && times["2"]?.milliseconds == answered.databaseMilliseconds)
        #expect(times["5"]?.type == "integer" && times["5"]?.milliseconds == started.databaseMilliseconds)
        #expect(
            try world.service.inspection(localID: draft.localID).updatedAt.databaseMilliseconds
                == answered.databaseMilliseconds)

        // The layout before: a TEXT column holding the store's date text (what `4-answers` made and the older
        // writers wrote), rows keyed by the local id, and a row without a time.
        try world.queue.write { db in
            try Self.rewindToLocalIDRows(db, timeType: "TEXT")
            for (fieldID, value, time) in [("2", "\"4\"", answered), ("5", "\"x\"", started)] {
                try db.execute(
                    "INSERT INTO inspection_answers VALUES (?, ?, ?, ?)", [draft.localID, fieldID, value, time])
            }
            try db.execute("INSERT INTO inspection_answers VALUES (?, '14', '\"Jordan\"', NULL)", [draft.localID])
            try db.execute("DELETE FROM jqc_migrations WHERE key = 'inspections/6-answer-times'")
        }
        let types: [String: String] = try world.queue.read { db in
            var types: [String: String] = [:]
            for row in try db.fetchAll(
                "SELECT field_id, typeof(answered_at) AS type FROM inspection_answers WHERE local_id = ?",
                [draft.localID])
            {
                types[row["field_id"] ?? ""] = row["type"] ?? ""
            }
            return types
        }
        #expect(types == ["2": "text", "5": "text", "14": "null"])

        var migrator = DatabaseMigrator()
        FacilitiesSchema.register(in: &migrator)
        InspectionsSchema.register(in: &migrator)
        #expect(
            try migrator.migrate(world.queue) == [
                "inspections/5-open-drafts-index", "inspections/6-answer-times", "inspections/7-answer-keys",
                "inspections/8-answer-slots",
            ])
        times = try Self.times(world, draft.localID)
        #expect(times["2"]?.type == "integer" && times["2"]?.milliseconds == answered.databaseMilliseconds)
        #expect(times["5"]?.type == "integer" && times["5"]?.milliseconds == started.databaseMilliseconds)
        #expect(times["14"]?.type == "null")
        let migrated = try world.service.inspection(localID: draft.localID)
        #expect(migrated.updatedAt.databaseMilliseconds == answered.databaseMilliseconds)
        #expect(migrated.formData == ["2": "4", "5": "x", "14": "Jordan"])
        // The draft takes answers as before, and the latest one is still its time.
        world.clock.advance(by: 5)
        try world.service.answer(localID: draft.localID, fieldID: "3", value: .option("pass"))
        let latest = try world.service.inspection(localID: draft.localID).updatedAt
        #expect(latest.databaseMilliseconds == world.clock.now.databaseMilliseconds)
    }

    @Test("answer rows carry their draft's integer key from a counter that never goes back: no key is reused")
    func answerKeysAreNeverReused() throws {
        let world = try InspectionFixture()
        let first = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["5": "x"]))
        let second = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let firstKey = try #require(try Self.answersKey(world, first.localID))
        let secondKey = try #require(try Self.answersKey(world, second.localID))
        #expect(secondKey == firstKey + 1)
        let keyType: String? = try world.queue.read { db in
            try db.scalar("SELECT typeof(answers_key) FROM inspection_answers WHERE field_id = '5'")
        }
        #expect(keyType == "integer")
        try world.service.deleteDraft(localID: second.localID)
        // A row of the deleted draft's key that something left behind (no path of this app does).
        try world.queue.write { db in
            try db.execute(
                "INSERT INTO inspection_answers (slot, answers_key, field_id, value) VALUES (?, ?, '2', '\"1\"')",
                [secondKey * 65_536 + 2, secondKey])
        }
        let third = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        #expect(try Self.answersKey(world, third.localID) == secondKey + 1)
        #expect(try world.service.inspection(localID: third.localID).formData.isEmpty)
        try world.service.answer(localID: third.localID, fieldID: "3", value: .option("pass"))
        #expect(try world.service.inspection(localID: third.localID).formData == ["3": "Pass"])
        #expect(try world.service.inspection(localID: first.localID).formData == ["5": "x"])
    }

    @Test("migration 7 keys each inspection's answer rows by an integer in row order: every answer kept")
    func answerKeysMigrationKeepsEveryAnswer() throws {
        let world = try InspectionFixture()
        let first = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["5": "x"]))
        world.clock.advance(by: 30)
        let second = try world.answeredDraft()
        let empty = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let before = try world.store.all()
        // The layout before: rows keyed by the local id (INTEGER times, as migration 6 left them), one of an
        // inspection no longer on the device.
        try world.queue.write { db in
            let rows = try db.fetchAll(
                """
                SELECT inspections.local_id, field_id, value, answered_at FROM inspection_answers
                JOIN inspections ON inspections.answers_key = inspection_answers.answers_key
                """)
            try Self.rewindToLocalIDRows(db, timeType: "INTEGER")
            for row in rows {
                let time: Int64? = row["answered_at"]
                try db.execute(
                    "INSERT INTO inspection_answers VALUES (?, ?, ?, ?)",
                    [row["local_id"] ?? "", row["field_id"] ?? "", row["value"] ?? "", time])
            }
            try db.execute("INSERT INTO inspection_answers VALUES ('gone', '2', '\"5\"', NULL)")
        }
        var migrator = DatabaseMigrator()
        FacilitiesSchema.register(in: &migrator)
        InspectionsSchema.register(in: &migrator)
        #expect(
            try migrator.migrate(world.queue) == [
                "inspections/5-open-drafts-index", "inspections/7-answer-keys", "inspections/8-answer-slots",
            ])

        #expect(try world.store.all() == before)
        #expect(try Self.answersKey(world, first.localID) == 1)
        #expect(try Self.answersKey(world, second.localID) == 2)
        #expect(try Self.answersKey(world, empty.localID) == 3)
        let rowsKept: Int? = try world.queue.read { db in try db.scalar("SELECT count(*) FROM inspection_answers") }
        #expect(rowsKept == 3)  // "5" of the first, "2" and "3" of the second; the row of 'gone' is not carried
        let target = try world.queue.read { db in try world.store.openDraft(db, localID: second.localID) }
        #expect(target?.answersKey == 2)
        let next = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        #expect(try Self.answersKey(world, next.localID) == 4)
        try world.service.answer(localID: empty.localID, fieldID: "2", value: .rating(3))
        #expect(try world.service.inspection(localID: empty.localID).formData == ["2": "3"])
    }

    /// Each answer row's `answered_at` of `localID`: its SQLite type and, when an integer, its value.
    static func times(_ world: InspectionFixture, _ localID: String) throws
        -> [String: (type: String, milliseconds: Int64?)]
    {
        try world.queue.read { db in
            var times: [String: (type: String, milliseconds: Int64?)] = [:]
            for row in try db.fetchAll(
                "SELECT field_id, typeof(answered_at) AS type, answered_at FROM inspection_answers WHERE \(InspectionAnswerRowsStoreTests.ofDraft)",
                [localID])
            {
                let type: String = row["type"] ?? ""
                times[row["field_id"] ?? ""] = (type, type == "integer" ? row["answered_at"] : nil)
            }
            return times
        }
    }

    /// The answer rows of `localID` with no `answered_at`.
    static func rowsWithoutTime(_ world: InspectionFixture, _ localID: String) throws -> Int? {
        try world.queue.read { db in
            try db.scalar(
                "SELECT count(*) FROM inspection_answers WHERE \(InspectionAnswerRowsStoreTests.ofDraft) AND answered_at IS NULL",
                [localID])
        }
    }

    @Test("a draft's updated_at is its latest write: an answer (its row's answered_at), a clear, a save")
    func updatedAtFollowsAnswers() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["5": "x"]))
        let started = world.clock.now
        world.clock.advance(by: 60)
        try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(4))
        let answered = world.clock.now
        #expect(try world.service.inspection(localID: draft.localID).updatedAt == answered)
        #expect(try world.store.all().first?.updatedAt == answered)
        let rowTime: Date? = try world.queue.read { db in
            try db.scalar("SELECT updated_at FROM inspections WHERE local_id = ?", [draft.localID])
        }
        #expect(rowTime == started)  // the answer wrote its own row only
        world.clock.advance(by: 60)
        try world.service.answer(localID: draft.localID, fieldID: "5", value: .clear)
        #expect(try world.service.inspection(localID: draft.localID).updatedAt == world.clock.now)
        world.clock.advance(by: 60)
        try world.service.save(localID: draft.localID)
        #expect(try world.service.inspection(localID: draft.localID).updatedAt == world.clock.now)
        #expect(try world.service.inspection(localID: draft.localID).formData == ["2": "4"])
    }

    @Test("submit folds the answers into form_data byte for byte (4.0 stays 4.0) and drops the rows; delete too")
    func submitFoldsAnswers() throws {
        let world = try InspectionFixture()
        let prefill: [String: JSONValue] = [
            "3": "Pass", "ratio": 4.0, "count": 7, "big": .int(Int64.max), "tiny": 1.5e-7,
            "table": [["Item": "Towels", "Count": 12, "Reorder?": false], ["Item": "Soap", "Count": 2.5]],
            "nested": ["a": [1, [2, ["b": "c"]], nil, true], "empty": [:], "list": []],
        ]
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: prefill))
        try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(4))
        let rows = try Self.rows(world, draft.localID)
        #expect(rows["ratio"] == "4.0")
        #expect(rows["count"] == "7")
        #expect(rows["big"] == "9223372036854775807")
        #expect(rows["2"] == "\"4\"")
        var expected = prefill
        expected["2"] = "4"
        #expect(try world.service.inspection(localID: draft.localID).formData == expected)
        let submitted = try world.service.submit(localID: draft.localID).inspection
        #expect(submitted.formData == expected)
        #expect(try Self.rows(world, draft.localID).isEmpty)
        #expect(try Self.formDataText(world, draft.localID) == JSONValue.object(expected).jsonString())
        #expect(try world.store.pendingSubmissions().map(\.formData) == [expected])

        let other = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["2": "1"]))
        #expect(try Self.rows(world, other.localID) == ["2": "\"1\""])
        try world.service.deleteDraft(localID: other.localID)
        #expect(try Self.rows(world, other.localID).isEmpty)
    }

    @Test("a store of the old layout (answers in form_data) migrates: every draft's answers kept, exactly")
    func migrationKeepsEveryAnswer() throws {
        let world = try InspectionFixture()
        let full = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let spaced = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let notAnObject = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let empty = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let done = try world.service.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: ["2": "5"]))
        try world.service.answer(localID: done.localID, fieldID: "3", value: .option("pass"))
        _ = try world.service.submit(localID: done.localID)
        let doneText = try #require(try Self.formDataText(world, done.localID))
        let answers: [String: JSONValue] = [
            "2": "4", "3": "Fail", "5": "Wiped \"down\" — é \\ / \u{1F9F9}", "ratio": 4.0, "count": 7,
            "big": .int(Int64.max), "tiny": 1.5e-7, "table": [["Item": "Towels", "Count": 12, "Reorder?": nil]],
            "nested": ["a": [1, [2, ["b": "c"]], nil, true], "empty": [:], "list": []],
        ]
        // What the old `insert` and `updateAnswers` wrote, and text written by other hands.
        let texts: [String: String] = [
            full.localID: JSONValue.object(answers).jsonString(),
            spaced.localID: #"{ "2" : "3", "n": 1e5, "x": [ 1.50, -0 ], "u": "\u00e9\n" }"#,
            notAnObject.localID: "[1,2]", empty.localID: "{}",
        ]
        // What every reader saw of the old layout: the same inspections, their answers parsed from form_data.
        let before = try world.store.all().map { inspection in
            var old = inspection
            if let text = texts[inspection.localID] {
                old.formData = (try? JSONValue.parse(text))?.objectValue ?? [:]
            }
            return old
        }
        try world.queue.write { db in
            try Self.rewindAnswerKeys(db)
            try db.execute(
                "DELETE FROM jqc_migrations WHERE key IN ('inspections/4-answers', 'inspections/6-answer-times')")
            for (localID, text) in texts {
                try db.execute("UPDATE inspections SET form_data = ? WHERE local_id = ?", [text, localID])
            }
        }
        var migrator = DatabaseMigrator()
        FacilitiesSchema.register(in: &migrator)
        InspectionsSchema.register(in: &migrator)
        #expect(
            try migrator.migrate(world.queue) == [
                "inspections/4-answers", "inspections/5-open-drafts-index", "inspections/6-answer-times",
                "inspections/7-answer-keys", "inspections/8-answer-slots",
            ])

        let after = try world.store.all()
        #expect(after == before)  // every field of every inspection, answers included
        #expect(after.first { $0.localID == full.localID }?.formData == answers)
        #expect(try Self.rowsWithoutTime(world, full.localID) == 0)  // written at full size, at the row's time
        #expect(try Self.rows(world, full.localID)["ratio"] == "4.0")
        #expect(try Self.rows(world, full.localID)["big"] == "9223372036854775807")
        let spacedAnswers = try #require(try JSONValue.parse(texts[spaced.localID] ?? "").objectValue)
        #expect(after.first { $0.localID == spaced.localID }?.formData == spacedAnswers)
        #expect(try Self.rows(world, notAnObject.localID).isEmpty)
        #expect(after.first { $0.localID == notAnObject.localID }?.formData == [:])
        for localID in texts.keys { #expect(try Self.formDataText(world, localID) == "") }
        // The submitted one keeps its form_data byte for byte, and no rows.
        #expect(try Self.formDataText(world, done.localID) == doneText)
        #expect(try Self.rows(world, done.localID).isEmpty)
        // The migrated draft takes answers as any other; the others stay.
        try world.service.answer(localID: full.localID, fieldID: "2", value: .rating(1))
        var expected = answers
        expected["2"] = "1"
        #expect(try world.service.inspection(localID: full.localID).formData == expected)
    }

    @Test("the row reader's answers search inspection_answers by its range of slots, never a scan")
    func readerSearchesByKey() throws {
        let world = try InspectionFixture()
        let steps = try world.queue.read { db in
            try db.fetchAll(
                "EXPLAIN QUERY PLAN SELECT \(InspectionStore.selection) WHERE inspections.local_id = ?", ["x"]
            )
            .compactMap { $0["detail"] as String? }
        }
        #expect(
            steps.contains { $0.contains("inspection_answers USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") },
            "\(steps)")
        #expect(!steps.contains { $0.hasPrefix("SCAN") }, "\(steps)")
    }

    @Test("the open-drafts index holds a draft while it takes answers, and nothing once it is submitted")
    func openDraftsIndexFollowsTheRow() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        let target = try #require(
            try world.queue.read { db in try world.store.openDraft(db, localID: draft.localID) })
        #expect(target.schemaHash == draft.schemaHash && target.status == .draft && target.answersInRows)
        #expect(target.answersKey == (try Self.answersKey(world, draft.localID)))
        #expect(try Self.indexedDrafts(world) == [draft.localID])
        // A draft whose answers are still JSON text is not in it (the full read tells it apart).
        let legacy = try world.service.start(StartRequest(templateID: 3, facilityID: 11, areaID: 112))
        try world.queue.write { db in
            try db.execute("UPDATE inspections SET form_data = '{}' WHERE local_id = ?", [legacy.localID])
        }
        #expect(try Self.indexedDrafts(world) == [draft.localID])
        #expect(try world.queue.read { db in try world.store.openDraft(db, localID: legacy.localID) } == nil)
        _ = try world.service.submit(localID: draft.localID)
        #expect(try Self.indexedDrafts(world).isEmpty)
        #expect(try world.queue.read { db in try world.store.openDraft(db, localID: draft.localID) } == nil)
        // The answer path still tells a submitted inspection from a draft.
        #expect(throws: InspectionsError.self) {
            try world.service.answer(localID: draft.localID, fieldID: "2", value: .rating(1))
        }
    }

    @Test(
        "save touches an open draft through the open-drafts index; a draft of JSON text and a submitted one go the long way"
    )
    func saveTouchesThroughTheOpenDraftsIndex() throws {
        let world = try InspectionFixture()
        let steps = try world.queue.read { db in
            try db.fetchAll("EXPLAIN QUERY PLAN \(InspectionStore.touchOpenDraftSQL)", [Date(), "x"])
                .compactMap { $0["detail"] as String? }
        }
        #expect(steps == ["SEARCH inspections USING INDEX inspections_open_drafts (local_id=?)"], "\(steps)")
        // An open draft: the one statement touches it.
        let draft = try world.answeredDraft()
        world.clock.advance(by: 60)
        #expect(
            try world.queue.write { db in
                try world.store.touchOpenDraft(db, localID: draft.localID, at: world.clock.now)
            })
        #expect(try world.service.inspection(localID: draft.localID).updatedAt == world.clock.now)
        // A draft whose answers are JSON text is not in the index: the statement touches nothing, save still does.
        let legacy = try world.service.start(StartRequest(templateID: 3, facilityID: 11, areaID: 112))
        try world.queue.write { db in
            try db.execute("UPDATE inspections SET form_data = '{\"2\":4}' WHERE local_id = ?", [legacy.localID])
        }
        world.clock.advance(by: 60)
        #expect(
            try !world.queue.write { db in
                try world.store.touchOpenDraft(db, localID: legacy.localID, at: world.clock.now)
            })
        try world.service.save(localID: legacy.localID)
        let saved = try world.service.inspection(localID: legacy.localID)
        #expect(saved.updatedAt == world.clock.now && saved.formData == ["2": 4])
        // A submitted inspection: nothing touched, and save says why.
        _ = try world.service.submit(localID: draft.localID)
        let submitted = try world.service.inspection(localID: draft.localID).updatedAt
        world.clock.advance(by: 60)
        #expect(
            try !world.queue.write { db in
                try world.store.touchOpenDraft(db, localID: draft.localID, at: world.clock.now)
            })
        #expect(throws: InspectionsError.self) { try world.service.save(localID: draft.localID) }
        #expect(try world.service.inspection(localID: draft.localID).updatedAt == submitted)
    }

    /// Takes the store back to the layout before migration `inspections/7-answer-keys` (and `5`, whose index
    /// it rebuilds): no `answers_key` column, no key counter, no `inspection_answers` table (the caller makes the
    /// one of the layout it wants: rows keyed by the local id).
    static func rewindAnswerKeys(_ db: Database) throws {
        try db.execute("DROP INDEX inspections_open_drafts")
        try db.execute("ALTER TABLE inspections DROP COLUMN answers_key")
        try db.execute("DROP TABLE inspection_answer_keys")
        try db.execute("DROP TABLE inspection_answers")
        try db.execute(
            """
            DELETE FROM jqc_migrations
            WHERE key IN ('inspections/5-open-drafts-index', 'inspections/7-answer-keys', 'inspections/8-answer-slots')
            """)
    }

    /// ``rewindAnswerKeys(_:)``, then an empty `inspection_answers` keyed by the local id with its time as
    /// `timeType` (`TEXT`: the layout of migration 4; `INTEGER`: of migration 6).
    static func rewindToLocalIDRows(_ db: Database, timeType: String) throws {
        try rewindAnswerKeys(db)
        try db.execute(
            """
            CREATE TABLE inspection_answers (
                local_id TEXT NOT NULL, field_id TEXT NOT NULL, value TEXT NOT NULL, answered_at \(timeType),
                PRIMARY KEY (local_id, field_id)
            ) WITHOUT ROWID
            """)
    }

    /// The `answers_key` of one inspection's row (`nil`: none, or no such row).
    static func answersKey(_ world: InspectionFixture, _ localID: String) throws -> Int64? {
        try world.queue.read { db in
            try db.scalar("SELECT answers_key FROM inspections WHERE local_id = ?", [localID])
        }
    }

    /// The local ids the open-drafts index holds, in order.
    static func indexedDrafts(_ world: InspectionFixture) throws -> [String] {
        try world.queue.read { db in
            try db.fetchAll(
                """
                SELECT local_id FROM inspections INDEXED BY inspections_open_drafts
                WHERE status = 'draft' AND form_data = '' ORDER BY local_id
                """
            ).compactMap { $0["local_id"] as String? }
        }
    }
}
