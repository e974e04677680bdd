import Foundation
import JQCInspections
import JQCStorage
import JQCSync

/// The `follow-ups` pull stage (seed 001 §8 step 6: before the schedules are pulled): after the inspections push, so
/// the section clears on the same sync that submits the re-inspection. Best-effort: never blocks the pass.
public struct FollowUpsPullStage: SyncStage {
    private let service: FollowUpService

    /// The stage over `service`.
    public init(service: FollowUpService) { self.service = service }

    /// `follow-ups`.
    public var name: String { "follow-ups" }
    /// A pull.
    public var direction: SyncDirection { .pull }
    /// Before the scheduled pull (SPEC.md §4: … follow-up requests → scheduled inspections).
    public var constraints: [StageConstraint] { [.before("scheduled")] }
    /// Always (seed 001 §8 step 6).
    public var isBestEffort: Bool { true }

    /// Pulls and applies the follow-up requests.
    /// - Returns: `pulled` = requests received.
    /// - Throws: `APIError`, `SyncStopError` or `DatabaseError`; the engine reports it and goes on.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        let pulled = try await service.pullList()
        return StageReport.pull(pulled: pulled.received, problems: pulled.problems)
    }
}

/// Hides the parent's follow-up request at once when a re-inspection is submitted (inside the submit
/// transaction; the next pull is authoritative either way, rule 78).
public struct FollowUpSubmitHook: InspectionSubmitHook {
    private let store: FollowUpStore
    private let inspections: InspectionStore

    /// A hook over the follow-up cache.
    public init(store: FollowUpStore, inspections: InspectionStore) {
        self.store = store
        self.inspections = inspections
    }

    /// Flags the parent's request `fulfilled_locally` when `inspection` is a re-inspection.
    /// - Throws: `DatabaseError` (which undoes the submit).
    public func inspectionSubmitted(_ inspection: Inspection, db: Database) throws {
        var parent = inspection.parentInspectionServerID
        if parent == nil, let localParent = inspection.parentInspectionLocalID {
            parent = try inspections.inspection(db, localID: localParent)?.serverID
        }
        guard let parent else { return }
        try store.markFulfilledLocally(db, serverID: parent)
    }
}
