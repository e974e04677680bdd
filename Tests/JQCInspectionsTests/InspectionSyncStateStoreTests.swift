import Foundation
import JQCKit
import JQCStorage
import Testing

@testable import JQCInspections

/// The short reads other features make of an inspection while they sync (issue 17): ``InspectionStore/syncState``
/// says what the whole row says, and ``InspectionStore/replaceAnswer`` writes the one answer a photo's upload
/// changes, whichever way the answers are stored.
@Suite("An inspection's sync state and one replaced answer, without reading the whole row")
struct InspectionSyncStateTests {
    @Test("syncState agrees with the row for a draft, a pending, a failed and a synced inspection; nil when absent")
    func agreesWithTheRow() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        let pending = try world.service.submit(localID: try world.answeredDraft().localID).inspection
        let failed = try world.service.submit(localID: try world.answeredDraft().localID).inspection
        let synced = try world.service.submit(localID: try world.answeredDraft().localID).inspection
        try world.queue.write { db in
            try db.execute(
                "UPDATE inspections SET sync_status = 'failed', sync_error = 'Refused: no area' WHERE local_id = ?",
                [failed.localID])
            try db.execute(
                "UPDATE inspections SET sync_status = 'synced', server_id = 4242 WHERE local_id = ?", [synced.localID])
        }
        for localID in [draft.localID, pending.localID, failed.localID, synced.localID] {
            let row = try world.service.inspection(localID: localID)
            let state = try #require(try world.store.syncState(localID: localID))
            #expect(state.localID == row.localID)
            #expect(state.status == row.status)
            #expect(state.syncStatus == row.syncStatus)
            #expect(state.serverID == row.serverID)
            #expect(state.syncError == row.syncError)
        }
        #expect(try world.store.syncState(localID: synced.localID)?.serverID == 4242)
        #expect(try world.store.syncState(localID: failed.localID)?.syncError == "Refused: no area")
        #expect(try world.store.syncState(localID: draft.localID)?.status == .draft)
        #expect(try world.store.syncState(localID: "nowhere") == nil)
    }

    @Test("replaceAnswer sets one answer of a draft (its row) and of a submitted one (form_data); the rest kept")
    func replacesOneAnswer() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        let submitted = try world.service.submit(localID: try world.answeredDraft().localID).inspection
        for localID in [draft.localID, submitted.localID] {
            var expected = try world.service.inspection(localID: localID).formData
            try world.queue.write { db in
                try world.store.replaceAnswer(
                    db, localID: localID, fieldID: "9", with: "/uploads/a.jpg", at: world.clock.now)
            }
            expected["9"] = "/uploads/a.jpg"
            #expect(try world.service.inspection(localID: localID).formData == expected)
        }
        // Storage unchanged: the draft's answers are still rows, the submitted one's still form_data.
        let texts: [String?] = try world.queue.read { db in
            try [draft.localID, submitted.localID].map {
                try db.scalar("SELECT form_data FROM inspections WHERE local_id = ?", [$0])
            }
        }
        #expect(texts.first == "")
        #expect(texts.last??.contains("/uploads/a.jpg") == true)
        let before: Int = try world.queue.read { try $0.scalar("SELECT count(*) FROM inspection_answers") ?? -1 }
        try world.queue.write { db in
            try world.store.replaceAnswer(db, localID: "nowhere", fieldID: "9", with: "x", at: world.clock.now)
        }
        #expect(try world.queue.read { try $0.scalar("SELECT count(*) FROM inspection_answers") as Int? } == before)
    }

    @Test("replaceAnswer(ifStill:) replaces only an answer that still holds the expected value, in either storage")
    func replacesOnlyTheExpected() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        let submitted = try world.service.submit(localID: try world.answeredDraft().localID).inspection
        for localID in [draft.localID, submitted.localID] {
            let sentinel: JSONValue = "local://photo-1"
            try world.queue.write { db in
                try world.store.replaceAnswer(db, localID: localID, fieldID: "9", with: sentinel, at: world.clock.now)
            }
            var expected = try world.service.inspection(localID: localID).formData
            // Another value than the sentinel: left alone.
            let refused = try world.queue.write { db in
                try world.store.replaceAnswer(
                    db, localID: localID, fieldID: "9", ifStill: "local://photo-2", with: "/uploads/b.jpg",
                    at: world.clock.now)
            }
            #expect(!refused)
            #expect(try world.service.inspection(localID: localID).formData == expected)
            // The sentinel: replaced, every other answer kept.
            let replaced = try world.queue.write { db in
                try world.store.replaceAnswer(
                    db, localID: localID, fieldID: "9", ifStill: sentinel, with: "/uploads/a.jpg",
                    at: world.clock.now)
            }
            #expect(replaced)
            expected["9"] = "/uploads/a.jpg"
            #expect(try world.service.inspection(localID: localID).formData == expected)
        }
        let absent = try world.queue.write { db in
            try world.store.replaceAnswer(
                db, localID: "nowhere", fieldID: "9", ifStill: "x", with: "y", at: world.clock.now)
        }
        #expect(!absent)
    }
}
