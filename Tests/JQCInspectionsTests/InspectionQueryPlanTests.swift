import Foundation
import JQCStorage
import JQCTestSupport
import Testing

@testable import JQCInspections

/// The store reads `status` and `drafts` make on a large store are index searches, never a scan of every
/// inspection (issue 17: a 100,000-inspection store; what the cold-start rows of `make bench` rely on).
@Suite("Inspection store query plans")
struct InspectionQueryPlanTests {
    /// SQLite's plan for `sql` on a migrated store (the `detail` of each step).
    func plan(_ sql: String) throws -> [String] {
        let fixture = try InspectionFixture()
        return try fixture.queue.read { db in
            try db.fetchAll("EXPLAIN QUERY PLAN " + sql).compactMap { $0["detail"] as String? }
        }
    }

    @Test("the failed list searches the sync_status index the migration adds")
    func failedUsesSyncStatusIndex() throws {
        let steps = try plan(InspectionStore.failedSQL)
        #expect(steps.contains { $0.contains("USING INDEX inspections_sync_status") }, "\(steps)")
        #expect(!steps.contains { $0.hasPrefix("SCAN inspections") }, "\(steps)")
    }

    @Test("the pending count and the draft list search the outbox index")
    func pendingAndDraftsUseOutboxIndex() throws {
        for sql in [InspectionStore.pendingCountSQL, InspectionStore.listSQL(draftsOnly: true)] {
            let steps = try plan(sql)
            #expect(steps.contains { $0.contains("inspections_outbox") }, "\(sql): \(steps)")
            #expect(!steps.contains { $0.hasPrefix("SCAN inspections") }, "\(sql): \(steps)")
        }
    }

    @Test("the answer path's read searches only the open-drafts covering index")
    func openDraftUsesOpenDraftsIndex() throws {
        let steps = try plan(InspectionStore.openDraftSQL.replacingOccurrences(of: "?", with: "'x'"))
        #expect(steps == ["SEARCH inspections USING COVERING INDEX inspections_open_drafts (local_id=?)"], "\(steps)")
    }

    @Test("the one-statement answer reads only the open-drafts covering index")
    func pinnedAnswerUsesOpenDraftsIndex() throws {
        let steps = try plan(InspectionStore.pinnedAnswerSQL.replacingOccurrences(of: "?", with: "'x'"))
        #expect(
            steps == ["SEARCH inspections USING COVERING INDEX inspections_open_drafts (local_id=? AND answers_key>?)"],
            "\(steps)")
    }

    @Test("the index migrations are registered after the table's and the outbox's")
    func indexMigrationRegistered() {
        var migrator = DatabaseMigrator()
        InspectionsSchema.register(in: &migrator)
        #expect(migrator.registeredKeys.first == "inspections/1-create")
        #expect(
            migrator.registeredKeys.suffix(6) == [
                "inspections/3-sync-status-index", "inspections/4-answers", "inspections/5-open-drafts-index",
                "inspections/6-answer-times", "inspections/7-answer-keys", "inspections/8-answer-slots",
            ])
    }
}
