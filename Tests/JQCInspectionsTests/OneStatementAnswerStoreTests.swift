import Foundation
import JQCKit
import JQCStorage
import Testing

@testable import JQCInspections

/// The answer path's one-statement case (issue 17): a draft answered before in this process is answered by one
/// statement that checks, as it writes, that the row is still that open draft pinned to that schema; anything
/// else takes the full path, with the same result or the same error.
@Suite("One-statement answers of a draft answered before (issue 17)")
struct OneStatementAnswerTests {
    /// The answer rows of one draft: field id → (stored JSON text, answered_at).
    static func rows(_ world: InspectionFixture, _ localID: String) throws -> [String: [String]] {
        try world.queue.read { db in
            var rows: [String: [String]] = [:]
            for row in try db.fetchAll(
                """
                SELECT field_id, value, answered_at FROM inspection_answers
                WHERE answers_key = (SELECT answers_key FROM inspections WHERE local_id = ?)
                """, [localID])
            {
                rows[row["field_id"] ?? ""] = [row["value"] ?? "", String(row["answered_at"] as Int64? ?? -1)]
            }
            return rows
        }
    }

    /// Three answers of `localID` (a rating, a text with non-ASCII letters, the rating again).
    static func answerThree(_ world: InspectionFixture, _ localID: String, forgetting: Bool) throws {
        let answers: [(String, [String])] = [("2", ["4"]), ("5", ["Zoë", "Ünal"]), ("2", ["5"])]
        for (field, words) in answers {
            if forgetting { world.service.openDraftHints.withLock { $0.removeAll() } }
            try world.service.answer(localID: localID, fieldID: field, arguments: words)
            world.clock.advance(by: 1)
        }
    }

    @Test("an answer given again takes one statement and stores exactly what the full path stores")
    func sameRowsAsTheFullPath() throws {
        let world = try InspectionFixture()
        let hinted = try world.service.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111)).localID
        let full = try world.service.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111)).localID
        let start = world.clock.now
        try Self.answerThree(world, hinted, forgetting: false)
        // The first answer took the full path (and remembered the draft); the next two took one statement.
        #expect(world.service.oneStatementAnswers.load(ordering: .relaxed) == 2)
        world.clock.set(start)
        try Self.answerThree(world, full, forgetting: true)
        #expect(world.service.oneStatementAnswers.load(ordering: .relaxed) == 2)
        let hintedRows = try Self.rows(world, hinted)
        #expect(hintedRows["2"]?.first == "\"5\"")  // a rating is stored as its digit in a string (seed 001)
        #expect(hintedRows["5"]?.first == "\"Zoë Ünal\"")
        #expect(hintedRows == (try Self.rows(world, full)))
        #expect(
            try world.service.inspection(localID: hinted).formData == world.service.inspection(localID: full).formData)
        #expect(
            try world.service.inspection(localID: hinted).updatedAt == world.service.inspection(localID: full).updatedAt
        )
    }

    @Test("a stale hint writes nothing: a draft submitted by another process answers with the full path's error")
    func staleHintFallsBack() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        #expect(world.service.openDraftHints.withLock { $0[draft.localID] } != nil)
        let before = try Self.rows(world, draft.localID)
        // Another process (its own service over the same store) submits the draft.
        let other = InspectionService(
            store: InspectionStore(queue: world.queue), reference: world.reference, clock: world.clock)
        _ = try other.submit(localID: draft.localID)
        let error = #expect(throws: InspectionsError.self) {
            try world.service.answer(localID: draft.localID, fieldID: "2", arguments: ["1"])
        }
        #expect(error?.kind == .notADraft)
        #expect(world.service.oneStatementAnswers.load(ordering: .relaxed) == 1)  // answeredDraft's second answer
        #expect(try Self.rows(world, draft.localID).isEmpty)  // submit folded the rows into form_data
        #expect(try world.service.inspection(localID: draft.localID).formData["2"] == .string("4"))
        #expect(!before.isEmpty)
        #expect(world.service.openDraftHints.withLock { $0[draft.localID] } == nil)
    }

    @Test("a value the form refuses gets the full path's sentence, hint or not")
    func refusedValueSameSentence() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        let hinted = #expect(throws: InspectionsError.self) {
            try world.service.answer(localID: draft.localID, fieldID: "2", arguments: ["9"])
        }
        world.service.openDraftHints.withLock { $0.removeAll() }
        let full = #expect(throws: InspectionsError.self) {
            try world.service.answer(localID: draft.localID, fieldID: "2", arguments: ["9"])
        }
        #expect(hinted?.kind == .invalidAnswer)
        #expect(hinted?.message == full?.message)
        #expect(try world.service.inspection(localID: draft.localID).formData["2"] == .string("4"))
    }
}
