import Foundation
import JQCInspections
import JQCKit
import JQCStorage

/// `resolveAndFulfillSchedule()` (seed 001 §11 "Second fix", rules 69 and 71) as a submit hook, run inside
/// the submit transaction:
/// - an inspection started from a schedule hides that schedule at once (`fulfilled_locally`);
/// - an inspection started WITHOUT one (the `+` path: template and facility hand-picked) is linked to the
///   matching schedule: same facility and template, `due_date` ≤ the server's today, assignee `nil` or
///   this user, earliest due first — and never for a re-inspection. Its `scheduled_inspection_id` is set
///   in the same transaction, so the server fulfils the schedule when the inspection syncs.
///
/// The next due date is never computed here (rule 69): the next pull writes the server's. When the server's
/// today is unknown the hook links nothing rather than guess with the device clock (seed 003).
public struct ScheduleFulfilmentHook: InspectionSubmitHook {
    private let store: SchedulingStore
    private let inspections: InspectionStore
    private let serverToday: @Sendable () -> CalendarDay?
    private let currentUserID: @Sendable () -> Int?

    /// A hook.
    /// - Parameters:
    ///   - store: the cached schedules (hidden or matched here, in the submit transaction).
    ///   - inspections: the local inspections (the submitted one is linked to the matched schedule).
    ///   - serverToday: the server's today from the last health reply (ConnectivityMonitor), or `nil`; when
    ///     `nil` the day remembered at the last schedule pull is used, and when that is unknown too, nothing
    ///     is linked.
    ///   - currentUserID: the signed-in user's id, or `nil` (then only unassigned schedules match).
    public init(
        store: SchedulingStore, inspections: InspectionStore, serverToday: @escaping @Sendable () -> CalendarDay?,
        currentUserID: @escaping @Sendable () -> Int?
    ) {
        self.store = store
        self.inspections = inspections
        self.serverToday = serverToday
        self.currentUserID = currentUserID
    }

    /// Links and hides as described above.
    /// - Throws: `DatabaseError` (which undoes the submit).
    public func inspectionSubmitted(_ inspection: Inspection, db: Database) throws {
        if let scheduled = inspection.scheduledInspectionServerID {
            try store.markFulfilledLocally(db, serverID: scheduled)
            return
        }
        guard let schedule = try resolve(inspection, db: db) else { return }
        try inspections.linkSchedule(db, localID: inspection.localID, scheduleServerID: schedule.serverID)
        try store.markFulfilledLocally(db, serverID: schedule.serverID)
    }

    /// The schedule a submission without a schedule fulfils, or `nil` (rule 69's matching rules).
    /// - Throws: `DatabaseError`.
    public func resolve(_ inspection: Inspection, db: Database) throws -> ScheduledInspection? {
        guard inspection.scheduledInspectionServerID == nil else { return nil }
        let today = try serverToday() ?? store.lastServerToday(db)
        return Self.match(
            try store.visible(db), facilityID: inspection.facilityID, templateID: inspection.templateID,
            isReinspection: inspection.parentInspectionLocalID != nil || inspection.parentInspectionServerID != nil,
            today: today, userID: currentUserID())
    }

    /// Rule 69's match, on values: the visible schedule of the same facility and template, due on or before
    /// `today`, assigned to nobody or to `userID`, earliest due first (then lowest id); never for a
    /// re-inspection; `nil` when `today` is unknown (seed 003: no guessing with the device's clock).
    public static func match(
        _ schedules: [ScheduledInspection], facilityID: Int, templateID: Int, isReinspection: Bool,
        today: CalendarDay?, userID: Int?
    ) -> ScheduledInspection? {
        guard !isReinspection, let today else { return nil }
        return schedules.filter { schedule in
            !schedule.fulfilledLocally && schedule.facilityID == facilityID && schedule.templateID == templateID
                && schedule.dueDate <= today && (schedule.inspectorID == nil || schedule.inspectorID == userID)
        }.min { ($0.dueDate, $0.serverID) < ($1.dueDate, $1.serverID) }
    }
}
