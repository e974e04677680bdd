import Foundation
import JQCComposition
import JQCForms
import JQCInspections
import JQCKit
import JQCStorage

/// The real write path: `InspectionService.answer(localID:fieldID:value:)` (a rating, typed) and
/// `answer(localID:fieldID:arguments:)` (a text, the shell's words) and `save(localID:)`, on an
/// ``AppComposition`` whose store holds `rows` inspections: the drafts under test pinned to generated forms
/// of each size (``GrowthForm``, every field answered), the rest copies of a demo template 3 inspection,
/// completed and synced, as on a device that has worked for a while.
final class EngineWriteWorkload: InspectionWriteWorkload {
    let app: AppComposition
    /// The drafts' local ids by form size (fields → ids).
    let drafts: [Int: [String]]
    /// The forms by size.
    let forms: [Int: GrowthForm]
    private var counter = 0

    init(app: AppComposition, drafts: [Int: [String]], forms: [Int: GrowthForm]) {
        self.app = app
        self.drafts = drafts
        self.forms = forms
    }

    /// Fills the engine's store (opened against a dev server for the reference pull): one draft of template 3
    /// started and answered through `InspectionService`, then `rows - 1` copies under new local ids inserted
    /// with `InspectionStore.insert` in one transaction (the rows `start` writes, without 100,000 commits):
    /// `draftsPerForm` drafts of each generated form, the others completed and synced. Every local id has the
    /// shape `InspectionService.start` gives on a device (a lowercase UUID, 36 characters; seeded, so each run
    /// builds the same store), not a short name: the id is the key of each inspection's row and of every index
    /// on it.
    /// - Returns: the drafts' local ids by form size.
    /// - Throws: the engine's errors.
    static func populate(_ bench: BenchApp, rows: Int, forms: [GrowthForm], draftsPerForm: Int) throws
        -> [Int: [String]]
    {
        let model = try bench.startAnsweredDraft()
        var drafts: [Int: [String]] = [:]
        var completed = model
        completed.status = .completed
        completed.syncStatus = .synced
        completed.completedAt = completed.startedAt
        completed.overallScore = 80
        var random = SeededGenerator(seed: UInt64(rows))
        try bench.app.store.write { db in
            _ = try bench.app.inspections.store.deleteDraft(db, localID: model.localID)
            var index = 0
            for form in forms {
                var draft = model
                draft.schemaSnapshot = form.schema
                draft.schemaHash = form.hash
                draft.formData = form.answers
                for _ in 0..<draftsPerForm {
                    draft.localID = Self.deviceID(&random)
                    index += 1
                    drafts[form.fields, default: []].append(draft.localID)
                    try bench.app.inspections.store.insert(db, draft)
                }
            }
            while index < rows {
                completed.localID = Self.deviceID(&random)
                completed.serverID = 100_000 + index
                index += 1
                try bench.app.inspections.store.insert(db, completed)
            }
        }
        try EngineBenchSQL.prepare(bench.app.store)
        return drafts
    }

    /// A local id as a device makes one (`UUID().uuidString.lowercased()`), from `random`.
    static func deviceID(_ random: inout SeededGenerator) -> String {
        let (high, low) = (random.next(), random.next())
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * index))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString.lowercased()
    }

    func answer(fields: Int, draft: Int, field: Int, rating: Int?) throws {
        guard let ids = drafts[fields], let form = forms[fields] else { return }
        let localID = ids[draft % ids.count]
        if let rating {
            let id = form.ratingIDs[field % form.ratingIDs.count]
            try app.inspections.answer(localID: localID, fieldID: id, value: .rating(rating))
        } else {
            let id = form.textIDs[field % form.textIDs.count]
            try app.inspections.answer(localID: localID, fieldID: id, arguments: ["Jordan", "Lee"])
        }
    }

    func saveDraft(fields: Int, draft: Int) throws {
        guard let ids = drafts[fields] else { return }
        try app.inspections.save(localID: ids[draft % ids.count])
    }

    func bareCommit() throws {
        counter += 1
        try EngineBenchSQL.bareCommit(app.store, value: "bare-\(counter)")
    }
}
