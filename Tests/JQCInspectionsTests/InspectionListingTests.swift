import Foundation
import JQCKit
import JQCStorage
import JQCTestSupport
import Testing

@testable import JQCInspections

/// `drafts` and `inspections` read list lines (``InspectionListing``), not whole inspections (issue 17): the same
/// inspections in the same order with the same values, without parsing any answers or pinned schema.
@Suite("Inspection list lines")
struct InspectionListingTests {
    /// A store with every kind of list line: a draft with an area, a newer draft without one (another
    /// author's), a submitted one with a score, a failed one with its error and a synced one with a server id.
    func world() throws -> InspectionFixture {
        let world = try InspectionFixture()
        let failed = try world.answeredDraft()
        _ = try world.service.submit(localID: failed.localID)
        world.clock.advance(by: 60)
        let synced = try world.answeredDraft(area: nil)
        _ = try world.service.submit(localID: synced.localID)
        try world.store.markSynced(localID: synced.localID, serverID: 501, at: world.clock.now)
        world.clock.advance(by: 60)
        let pending = try world.answeredDraft(area: 112)
        _ = try world.service.submit(localID: pending.localID)
        world.clock.advance(by: 60)
        _ = try world.answeredDraft()
        world.clock.advance(by: 60)
        try world.queue.write { db in
            // Sam's session makes the next draft his (the outbox insert trigger stamps it).
            try OutboxAuthorship.record(db, userID: 8, username: "sam", server: "primary")
        }
        _ = try world.service.start(StartRequest(templateID: 3, facilityID: 21, areaID: nil))
        try world.queue.write { db in
            let key = [OutboxKey(failed.localID)]
            try InspectionStore.outbox.markAttempt(db, key, attempts: 5, reason: "timed out", at: world.clock.now)
            try InspectionStore.outbox.markFailed(db, key, reason: "HTTP 422: facility closed", at: world.clock.now)
        }
        return world
    }

    @Test("every list line is its inspection's values, in list's order, drafts only or all")
    func sameAsTheInspections() throws {
        let world = try world()
        for draftsOnly in [false, true] {
            let full = try world.service.list(draftsOnly: draftsOnly)
            let lines = try world.service.listings(draftsOnly: draftsOnly)
            #expect(lines == full.map(InspectionListing.init), "draftsOnly \(draftsOnly)")
        }
        let all = try world.service.listings()
        #expect(all.count == 5)
        #expect(all.map(\.badge) == [.draft, .draft, .pendingSync, .completed, .syncFailed])
        let drafts = try world.service.listings(draftsOnly: true)
        #expect(drafts.map(\.localID) == all.prefix(2).map(\.localID))
        let theirs = try #require(drafts.first)
        #expect(theirs.facilityName == "Clinic A")
        #expect(theirs.areaName == nil)
        #expect(theirs.outbox.author == OutboxAuthor(userID: 8, username: "sam", server: "primary"))
        #expect(drafts.last?.areaName == "Restrooms")
        let failed = try #require(all.last)
        #expect(failed.syncError == "HTTP 422: facility closed")
        #expect(failed.outbox.attempts == 5)
        #expect(failed.overallScore == 90)  // rating 4 of 5 and a pass
        #expect(all[3].serverID == 501)
        #expect(all.allSatisfy { $0.templateName == "Restroom QC" && $0.schemaHash == all[0].schemaHash })
    }

    @Test("the list line query reads neither answers nor pinned schemas, and finds drafts by the outbox index")
    func readsNoBlobs() throws {
        let world = try world()
        for draftsOnly in [false, true] {
            let sql = InspectionStore.listingSQL(draftsOnly: draftsOnly)
            let rows = try world.queue.read { db in try db.fetchAll(sql) }
            let columns = try #require(rows.first?.columns)
            #expect(!columns.contains("form_data") && !columns.contains("schema_snapshot"), "\(columns)")
            #expect(!columns.contains("pinned_snapshot"), "\(columns)")
            let plan = try world.queue.read { db in
                try db.fetchAll("EXPLAIN QUERY PLAN " + sql).compactMap { $0["detail"] as String? }
            }
            #expect(!plan.contains { $0.contains("inspection_schemas") }, "\(plan)")
            if draftsOnly {
                #expect(plan.contains { $0.contains("USING INDEX inspections_outbox") }, "\(plan)")
                #expect(!plan.contains { $0.hasPrefix("SCAN inspections") }, "\(plan)")
            }
        }
    }
}
