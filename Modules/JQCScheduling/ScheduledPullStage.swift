import Foundation
import JQCSync

/// The `scheduled` pull stage (a pull, so after every push; seed 001 §8, §11): runs after the inspections push in
/// the same pass, so a fulfilled one-time schedule disappears and a recurring one shows its rolled-forward
/// date on the sync that submits the inspection. Not best-effort: a failure is reported as the stage's.
public struct ScheduledPullStage: SyncStage {
    private let service: SchedulingService

    /// The stage over `service`.
    public init(service: SchedulingService) { self.service = service }

    /// `scheduled`.
    public var name: String { "scheduled" }
    /// A pull.
    public var direction: SyncDirection { .pull }
    /// The seed does not mark this pull best-effort.
    public var isBestEffort: Bool { false }

    /// Pulls and applies the schedules.
    /// - Returns: `pulled` = schedules received.
    /// - Throws: `APIError`, `SyncStopError` or `DatabaseError`.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        let pulled = try await service.pullList()
        return StageReport.pull(pulled: pulled.received, problems: pulled.problems)
    }
}
