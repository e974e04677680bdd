import Foundation
import JQCKit
import JQCSync

/// The notifications step of a pass (seed 001 §8 step 7 `pollNotifications`; SPEC.md §4 order): push the
/// queued mark-read, then pull what is new since the cursor. Best-effort: a failure is reported and the
/// pass goes on.
public struct NotificationsStage: SyncStage {
    private let service: NotificationService

    /// The stage over `service`.
    public init(service: NotificationService) { self.service = service }

    /// `notifications`.
    public var name: String { "notifications" }
    /// A pull (its queued mark-read push rides along, first).
    public var direction: SyncDirection { .pull }
    /// After the other pulls (SPEC.md §4: … scheduled inspections → notifications → dashboard stats).
    public var constraints: [StageConstraint] { [.after("follow-ups"), .after("scheduled")] }
    /// Always: notifications never block the pipeline.
    public var isBestEffort: Bool { true }

    /// Pushes the queued mark-read, then pulls what is new.
    /// - Returns: `pushed` ids marked read on the server, `pulled` notifications received, `deferred` ids
    ///   still queued.
    /// - Throws: `SyncStopError` (offline, signed out, update required), `APIError`, `NotificationsError` or
    ///   `DatabaseError`; the engine reports it and goes on (best-effort).
    public func run(_ pass: SyncPass) async throws -> StageReport {
        try await service.run(pass)
    }
}

/// The dashboard stats step, last in every pass (seed 001 rule 49): best-effort, and a failure never even
/// stops the pass — it is reported in the stage's `error` and the cached stats stay as they were.
public struct DashboardStage: SyncStage {
    private let service: DashboardService

    /// The stage over `service`.
    public init(service: DashboardService) { self.service = service }

    /// `dashboard`.
    public var name: String { "dashboard" }
    /// A pull.
    public var direction: SyncDirection { .pull }
    /// Last in the pass (rule 49).
    public var constraints: [StageConstraint] { [.last] }
    /// Always (rule 49).
    public var isBestEffort: Bool { true }

    /// Fetches and caches the stats.
    /// - Returns: `pulled` 1 on success; on failure `pulled` 0 with the reason in `error`.
    /// - Throws: only `CancellationError` when the pass is cancelled.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        do {
            try await service.refresh()
            return StageReport(pulled: 1)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let reason = DashboardService.sentence(for: error)
            pass.logger.warning("dashboard stats not refreshed (best-effort): \(reason)")
            return StageReport(error: reason)
        }
    }
}
