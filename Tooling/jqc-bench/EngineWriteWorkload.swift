import Foundation
import JQCComposition
import JQCInspections
import JQCKit
import JQCStorage

/// The real write path: `InspectionService.answer(localID:fieldID:arguments:)` and `save(localID:)` on an
/// ``AppComposition`` whose store holds `rows` inspections of the demo template 3 (one in ten a draft, the
/// rest completed and synced, as on a device that has worked for a while).
final class EngineWriteWorkload: InspectionWriteWorkload {
    let app: AppComposition
    /// The drafts' local ids (the answer and save targets).
    let drafts: [String]
    private var counter = 0

    init(app: AppComposition, drafts: [String]) {
        self.app = app
        self.drafts = drafts
    }

    /// Fills the engine's store (opened against a dev server for the reference pull): one draft started and
    /// answered through `InspectionService`, then `rows - 1` copies under new local ids inserted with
    /// `InspectionStore.insert` in one transaction (the same rows `start` writes, without 10,000 commits).
    /// - Returns: the drafts' local ids.
    /// - Throws: the engine's errors.
    static func populate(_ bench: BenchApp, rows: Int) throws -> [String] {
        let model = try bench.startAnsweredDraft()
        var drafts = [model.localID]
        try bench.app.store.write { db in
            for index in 1..<rows {
                var copy = model
                copy.localID = "bench-\(index)"
                if index % 10 != 0 {
                    copy.status = .completed
                    copy.syncStatus = .synced
                    copy.serverID = 100_000 + index
                    copy.completedAt = copy.startedAt
                    copy.overallScore = 80
                } else {
                    drafts.append(copy.localID)
                }
                try bench.app.inspections.store.insert(db, copy)
            }
        }
        try EngineBenchSQL.prepare(bench.app.store)
        return drafts
    }

    func answer(draft: Int, field: String, words: [String]) throws {
        try app.inspections.answer(localID: drafts[draft % drafts.count], fieldID: field, arguments: words)
    }

    func saveDraft(draft: Int) throws {
        try app.inspections.save(localID: drafts[draft % drafts.count])
    }

    func bareCommit() throws {
        counter += 1
        try EngineBenchSQL.bareCommit(app.store, value: "bare-\(counter)")
    }

    /// The `json_set` design option on the same row (see ``EngineBenchSQL/answerInSQL(_:localID:field:value:)``).
    func answerInSQL(draft: Int, field: String, value: JSONValue) throws {
        try EngineBenchSQL.answerInSQL(app.store, localID: drafts[draft % drafts.count], field: field, value: value)
    }
}
