import Foundation
import JQCFacilities
import JQCForms
import JQCKit
import JQCStorage
import JQCSync
import Synchronization

/// The inspector's actions on local inspections (seed 001 §11; SPEC.md §4). Every action writes to the
/// local store at once, in one transaction, and succeeds offline.
public final class InspectionService: Sendable {
    /// The inspections store.
    public let store: InspectionStore
    private let reference: ReferenceStore
    let clock: any Clock
    private let submitHookList: Contributions<any InspectionSubmitHook>
    private let deletionHookList: Contributions<any InspectionDraftDeletionHook>
    private let clearingHookList = Contributions<any InspectionPhotoFieldClearingHook>()
    /// The parsed pinned schemas, by schema hash (issue 17): answer, save and submit parse a schema once.
    public let schemaCache: FormSchemaCache
    /// The pinned schema hash of each open draft this process answered (local id → hash; issue 17): a hint
    /// for the one-statement answer path, whose statement checks it (a stale hint writes nothing, and the full
    /// path runs). Emptied when it holds ``openDraftHintLimit`` drafts.
    let openDraftHints = Mutex<[String: String]>([:])
    /// The most drafts ``openDraftHints`` remembers.
    static let openDraftHintLimit = 256
    /// How many answers this service wrote by the one-statement path (diagnostics and tests).
    let oneStatementAnswers = Atomic<Int>(0)
    private let makeID: @Sendable () -> String

    /// A service.
    /// - Parameters:
    ///   - store: the inspections table; each action is one transaction on its queue.
    ///   - reference: the reference cache a start is checked against (template, facility, area).
    ///   - clock: the time written as `created_at`, `updated_at` and `completed_at`.
    ///   - submitHooks: called inside the submit transaction, in order (Scheduling, FollowUps); more are
    ///     added with ``register(submitHook:)``.
    ///   - deletionHooks: called inside the draft-deletion transaction (Photos, Issues); more are added with
    ///     ``register(deletionHook:)``.
    ///   - schemaCache: the parsed pinned schemas by hash (a fresh cache by default).
    ///   - makeID: new local ids (a lowercase UUID by default).
    public init(
        store: InspectionStore, reference: ReferenceStore, clock: any Clock,
        submitHooks: [any InspectionSubmitHook] = [], deletionHooks: [any InspectionDraftDeletionHook] = [],
        schemaCache: FormSchemaCache = FormSchemaCache(),
        makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.store = store
        self.reference = reference
        self.clock = clock
        self.submitHookList = Contributions(submitHooks)
        self.deletionHookList = Contributions(deletionHooks)
        self.makeID = makeID
        self.schemaCache = schemaCache
    }

    /// Adds a hook called inside every submit transaction, after the ones before it (a later feature's,
    /// when it is installed: Scheduling, FollowUps).
    public func register(submitHook: any InspectionSubmitHook) { submitHookList.add(submitHook) }

    /// Adds a hook called inside every draft-deletion transaction, after the ones before it (Photos, Issues).
    public func register(deletionHook: any InspectionDraftDeletionHook) { deletionHookList.add(deletionHook) }

    /// Adds a hook called inside the answer transaction that removes an image or signature field's answer
    /// (Photos: the field's photo goes with it; issue 18).
    public func register(photoFieldClearingHook hook: any InspectionPhotoFieldClearingHook) {
        clearingHookList.add(hook)
    }

    private var submitHooks: [any InspectionSubmitHook] { submitHookList.all }
    private var deletionHooks: [any InspectionDraftDeletionHook] { deletionHookList.all }
    var clearingHooks: [any InspectionPhotoFieldClearingHook] { clearingHookList.all }

    // MARK: Start

    /// Starts a draft from a cached, active template and facility (and an area of that facility), pinning
    /// the template's schema and its hash (SPEC.md §4).
    /// - Returns: the new draft.
    /// - Throws: ``InspectionsError`` (`unknownTemplate`, `unknownFacility`, `unknownArea`, `storage`).
    public func start(_ request: StartRequest) throws -> Inspection {
        let template = try wrap { try reference.template(id: request.templateID) }
        guard let template, template.isActive else {
            throw InspectionsError(
                .unknownTemplate,
                template == nil
                    ? "There is no template \(request.templateID) on this device; run 'sync' and pick one from 'templates'."
                    : "The template \(request.templateID) (\(template!.name)) is no longer active; pick one from 'templates'."
            )
        }
        let facility = try wrap { try reference.facility(id: request.facilityID) }
        guard let facility, facility.isActive else {
            throw InspectionsError(
                .unknownFacility,
                facility == nil
                    ? "There is no facility \(request.facilityID) on this device; run 'sync' and pick one from 'facilities'."
                    : "The facility \(request.facilityID) (\(facility!.name)) is no longer in your contracts; "
                        + "pick one from 'facilities'.")
        }
        var areaName: String?
        if let areaID = request.areaID {
            let area = try wrap { try reference.area(id: areaID) }
            guard let area, area.facilityID == facility.id else {
                let names = (try? reference.areas(facilityID: facility.id))?.map { "\($0.id) \($0.name)" } ?? []
                throw InspectionsError(
                    .unknownArea,
                    "The area \(areaID) is not part of \(facility.name); "
                        + (names.isEmpty
                            ? "this facility has no areas on this device."
                            : "its areas are: "
                                + names.joined(separator: ", ") + "."))
            }
            areaName = area.name
        }
        let schema = FormSchema(json: template.formSchema)
        let now = clock.now
        let inspection = Inspection(
            localID: makeID(), serverID: nil, templateID: template.id, templateName: template.name,
            facilityID: facility.id, facilityName: facility.name, areaID: request.areaID, areaName: areaName,
            projectID: facility.projectID, status: .draft, outbox: OutboxState(), formData: request.initialAnswers,
            schemaSnapshot: template.formSchema,
            schemaHash: schema.hash, overallScore: nil, startedAt: now, completedAt: nil,
            parentInspectionLocalID: request.parentInspectionLocalID,
            parentInspectionServerID: request.parentInspectionServerID,
            scheduledInspectionServerID: request.scheduledInspectionServerID, submitLatitude: nil,
            submitLongitude: nil, notes: request.notes, followUpRequired: false, followUpNote: nil, createdAt: now,
            updatedAt: now)
        try wrap { try store.queue.write { db in try store.insert(db, inspection) } }
        return inspection
    }

    // MARK: Read

    /// One local inspection.
    /// - Throws: ``InspectionsError`` `notFound` with a sentence, or `storage`.
    public func inspection(localID: String) throws -> Inspection {
        guard let found = try wrap({ try store.inspection(localID: localID) }) else {
            throw InspectionsError(.notFound, "There is no inspection \(localID) on this device; see 'inspections'.")
        }
        return found
    }

    /// Every local inspection (newest first), or only the drafts.
    /// - Throws: ``InspectionsError`` `storage`.
    public func list(draftsOnly: Bool = false) throws -> [Inspection] {
        try wrap { try store.all(draftsOnly: draftsOnly) }
    }

    /// The list lines of ``list(draftsOnly:)`` — the same inspections in the same order — without their answers
    /// and pinned schemas (``InspectionListing``): what `drafts` and `inspections` show (issue 17).
    /// - Throws: ``InspectionsError`` `storage`.
    public func listings(draftsOnly: Bool = false) throws -> [InspectionListing] {
        try wrap { try store.listings(draftsOnly: draftsOnly) }
    }

    // MARK: Submit

    /// Submits a draft in ONE transaction (SPEC.md §4 "Local writes are atomic"): required validation on the
    /// pinned schema (refused with the missing labels in schema order), the score on the pinned schema, the
    /// optional GPS (rule 53), `completed` + `pending` + `completed_at`, the parent's follow-up flag
    /// (seed 000 §14, rule 15) and the submit hooks. A crash at any point leaves the old or the new state.
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - location: the GPS fix, or `nil` (never blocks submit).
    /// - Returns: the stored inspection and the follow-up outcome.
    /// - Throws: ``InspectionsError`` (`notFound`, `notADraft`, `requiredMissing`), or a hook's error.
    public func submit(localID: String, location: Coordinate? = nil) throws -> SubmitResult {
        try wrap {
            try store.queue.write { db in
                let draft = try self.draft(db, localID)
                let schema = schemaCache.schema(hash: draft.schemaHash) { draft.schemaSnapshot }
                let missing = RequiredFields.missingLabels(in: schema, answers: draft.formData)
                guard missing.isEmpty else {
                    throw InspectionsError(
                        .requiredMissing,
                        "Submit refused: answer the required "
                            + (missing.count == 1 ? "field " : "fields ")
                            + missing.map { "\"\($0)\"" }.joined(separator: ", ")
                            + " first.", missingLabels: missing)
                }
                let score = InspectionScorer.score(schema: schema, formData: draft.formData)
                let now = clock.now
                try store.markSubmitted(
                    db, localID: localID, formData: draft.formData, score: score,
                    location: location, at: now)
                let followUp = try clearParentFollowUpFlag(db, for: draft, at: now)
                guard let stored = try store.inspection(db, localID: localID) else {
                    throw InspectionsError(.notFound, "The inspection \(localID) disappeared while submitting.")
                }
                for hook in submitHooks { try hook.inspectionSubmitted(stored, db: db) }
                // Read again: a hook may have linked it (rule 69 links the schedule it fulfils).
                let linked = try store.inspection(db, localID: localID) ?? stored
                return SubmitResult(inspection: linked, followUp: followUp)
            }
        }
    }

    /// Clears the parent's follow-up flag for a re-inspection, in the caller's transaction, in the seed's
    /// order (seed 000 §14): 1. the local parent by local id; 2. by server id (a parent found by either is the
    /// parent, flagged or not: the fallback never runs then); 3. the only flagged completed
    /// inspection of the same template and facility — refused when several match (rule 15: ambiguous).
    /// - Returns: what was cleared, if anything.
    /// - Throws: `DatabaseError`.
    public func clearParentFollowUpFlag(_ db: Database, for inspection: Inspection, at now: Date) throws
        -> FollowUpClearing
    {
        guard inspection.parentInspectionLocalID != nil || inspection.parentInspectionServerID != nil else {
            return .notAReinspection
        }
        if let parent = inspection.parentInspectionLocalID, try store.exists(db, localID: parent) {
            try store.clearFollowUpFlag(db, localID: parent, at: now)
            return .clearedByLocalID(parent)
        }
        if let serverID = inspection.parentInspectionServerID,
            let parent = try store.localID(db, serverID: serverID)
        {
            try store.clearFollowUpFlag(db, localID: parent, at: now)
            return .clearedByServerID(parent)
        }
        let candidates = try store.flaggedLocalIDs(
            db, templateID: inspection.templateID,
            facilityID: inspection.facilityID, excluding: inspection.localID)
        switch candidates.count {
        case 0: return .parentNotLocal
        case 1:
            try store.clearFollowUpFlag(db, localID: candidates[0], at: now)
            return .clearedByTemplateAndFacility(candidates[0])
        default: return .ambiguous(candidates: candidates.count)
        }
    }

    // MARK: Delete and retry

    /// Deletes a draft with what hangs off it (the deletion hooks: pending photos, issues) in one
    /// transaction; a completed inspection is never deleted (seed 001 §11.3).
    /// - Throws: ``InspectionsError`` (`notFound`, `notADraft`).
    public func deleteDraft(localID: String) throws {
        try wrap {
            try store.queue.write { db in
                _ = try self.draft(db, localID)
                for hook in deletionHooks { try hook.draftDeleting(localID: localID, db: db) }
                _ = try store.deleteDraft(db, localID: localID)
            }
        }
        for hook in deletionHooks { hook.draftDeleted(localID: localID) }
    }

    /// Discards a failed inspection: the inspector's explicit choice (SPEC.md §4: a failed item is never retried
    /// automatically but can be retried or discarded). Its photos and unsynced issues go with it, through the
    /// same hooks as a deleted draft, in one transaction.
    /// - Throws: ``InspectionsError`` `.invalidState` when it is not failed; `.notFound`; `.storage`.
    public func discardFailed(localID: String) throws {
        let found = try inspection(localID: localID)
        var discarded = false
        try wrap {
            try store.queue.write { db in
                guard found.status == .completed, found.syncStatus == .failed else { return }
                for hook in deletionHooks { try hook.draftDeleting(localID: localID, db: db) }
                discarded = try store.deleteFailed(db, localID: localID)
            }
        }
        guard discarded else {
            throw InspectionsError(
                .invalidState,
                "The inspection \(localID) is \(found.badge.label), not failed; only a failed inspection can be discarded."
            )
        }
        for hook in deletionHooks { hook.draftDeleted(localID: localID) }
    }

    /// Puts a failed inspection back in the outbox (the inspector's retry).
    /// - Throws: ``InspectionsError`` `invalidState` when it is not failed.
    public func retry(localID: String) throws {
        let found = try inspection(localID: localID)
        guard try wrap({ try store.retryFailed(localID: localID, at: clock.now) }) else {
            throw InspectionsError(
                .invalidState,
                "The inspection \(localID) is \(found.badge.label), not failed; "
                    + "only a failed inspection can be retried.")
        }
    }

    // MARK: Helpers

    func draft(_ db: Database, _ localID: String) throws -> Inspection {
        guard let found = try store.inspection(db, localID: localID) else {
            throw InspectionsError(.notFound, "There is no inspection \(localID) on this device; see 'inspections'.")
        }
        guard found.status == .draft else {
            throw InspectionsError(
                .notADraft,
                "The inspection \(localID) was already submitted (\(found.badge.label)); "
                    + "only drafts can be changed or deleted.")
        }
        return found
    }

    func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as InspectionsError {
            throw error
        } catch let error as DatabaseError {
            throw InspectionsError(.storage, error.description, cause: error)
        }
    }
}
