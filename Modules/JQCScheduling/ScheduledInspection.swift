import Foundation
import JQCInspections
import JQCKit
import JQCNetwork
import Synchronization

/// A cached schedule (CONTRACT.md "Scheduled inspections"; seed 001 `LocalScheduledInspection`), as a value
/// (rules 68, 70: consumers hold snapshots, never live rows).
public struct ScheduledInspection: Sendable, Hashable {
    /// The server's id, always set explicitly (rule 63's lesson: the unique key has no default).
    public var serverID: Int
    /// The facility to inspect.
    public var facilityID: Int
    /// The facility's name as the server sent it.
    public var facilityName: String?
    /// The template to use.
    public var templateID: Int
    /// The template's name as the server sent it.
    public var templateName: String?
    /// The assignee, or `nil` for an unassigned schedule.
    public var inspectorID: Int?
    /// `once`, `daily`, `weekly` or `monthly` (a newer server's value kept as sent).
    public var frequency: ScheduleFrequency
    /// The server's label for the frequency (`One-time`, `Daily`, …).
    public var frequencyLabel: String?
    /// When the open occurrence is due (the server's, never computed here: rule 69).
    public var dueDate: CalendarDay
    /// The occurrence after `dueDate` (`nil` for one-time schedules).
    public var nextDueDate: CalendarDay?
    /// The server's `is_overdue` at the pull (`due_date` before the server's today then).
    public var serverSaysOverdue: Bool
    /// The manager's text, `notes` on the wire; shown as ``instructions``.
    public var notes: String?
    /// The inspection this schedule follows up (phase45, rule 80), or `nil`.
    public var parentInspectionID: Int?
    /// Hidden locally because an inspection submitted here fulfils it; cleared by every pull (rule 71).
    public var fulfilledLocally: Bool

    /// A schedule.
    public init(
        serverID: Int, facilityID: Int, facilityName: String? = nil, templateID: Int, templateName: String? = nil,
        inspectorID: Int? = nil, frequency: ScheduleFrequency = .once, frequencyLabel: String? = nil,
        dueDate: CalendarDay,
        nextDueDate: CalendarDay? = nil, serverSaysOverdue: Bool = false, notes: String? = nil,
        parentInspectionID: Int? = nil, fulfilledLocally: Bool = false
    ) {
        self.serverID = serverID
        self.facilityID = facilityID
        self.facilityName = facilityName
        self.templateID = templateID
        self.templateName = templateName
        self.inspectorID = inspectorID
        self.frequency = frequency
        self.frequencyLabel = frequencyLabel
        self.dueDate = dueDate
        self.nextDueDate = nextDueDate
        self.serverSaysOverdue = serverSaysOverdue
        self.notes = notes
        self.parentInspectionID = parentInspectionID
        self.fulfilledLocally = fulfilledLocally
    }

    /// Reads the contract's `schedule` object; `nil` when ``init(reply:at:)`` refuses it.
    public init?(json: JSONValue) {
        guard let read = try? ScheduledInspection(reply: json, at: ReplyPath()) else { return nil }
        self = read
    }

    /// Reads the contract's `schedule` object at `path`: `id`, `facility_id`, `template_id` and a `yyyy-MM-dd`
    /// `due_date` are required; every member present must have its type (issue 21).
    /// - Throws: ``/JQCNetwork/ReplyShapeError`` naming the member's path.
    public init(reply: JSONValue, at path: ReplyPath) throws {
        let fields = try ReplyFields(reply, at: path)
        self.init(
            serverID: try fields.int("id"), facilityID: try fields.int("facility_id"),
            facilityName: try fields.optionalString("facility_name"), templateID: try fields.int("template_id"),
            templateName: try fields.optionalString("template_name"),
            inspectorID: try fields.optionalInt("inspector_id"),
            frequency: ScheduleFrequency(rawValue: try fields.optionalString("frequency") ?? "once"),
            frequencyLabel: try fields.optionalString("frequency_label"), dueDate: try fields.day("due_date"),
            nextDueDate: try fields.optionalDay("next_due_date"),
            serverSaysOverdue: try fields.optionalBool("is_overdue") ?? false,
            notes: try fields.optionalString("notes"),
            parentInspectionID: try fields.optionalInt("parent_inspection_id"))
    }

    /// The "Instructions" shown for `notes`: trimmed, blank → `nil` (seed 001 §11, rule 70; CONTRACT.md).
    public var instructions: String? {
        let trimmed = (notes ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether it is overdue: `due_date` before the server's today when that is known (seed 003: never the
    /// device's clock), else the server's own `is_overdue` from the pull.
    public func isOverdue(today: CalendarDay?) -> Bool {
        guard let today else { return serverSaysOverdue }
        return dueDate < today
    }
}

/// What starting from a schedule produced: the request for `InspectionService.start(_:)` and the instructions copied
/// once, as a value (rule 70), for the start screen and the banner above the form.
public struct ScheduledStart: Sendable, Hashable {
    /// The schedule started (a snapshot).
    public var schedule: ScheduledInspection
    /// Template + facility from the schedule, `scheduledInspectionServerID` set, and for a follow-up schedule
    /// the parent link and the re-inspection prefill.
    public var request: StartRequest
    /// The schedule's instructions (trimmed; `nil` when blank).
    public var instructions: String?
}

/// A re-inspection's prefill, resolved by JQCFollowUps (seed 001 §15 "Parent pre-fill — two sources").
public struct ParentPrefill: Sendable, Hashable {
    /// The parent's local id when it is on this device.
    public var localParentID: String?
    /// The answers to start with (exclusions and the schema guard already applied).
    public var answers: [String: JSONValue]

    /// A prefill.
    public init(localParentID: String?, answers: [String: JSONValue]) {
        self.localParentID = localParentID
        self.answers = answers
    }
}

/// The server's today as last learned from `GET /api/v1/health` (seed 003: the client never computes
/// "today"). The composition records each probe's reply here so synchronous code (the submit hook) can read
/// it; `nil` until a probe answered.
public final class ServerTodayMemory: Sendable {
    private let day = Mutex<CalendarDay?>(nil)

    /// An empty memory.
    public init() {}

    /// Records the day from a health reply.
    public func record(_ today: CalendarDay) { day.withLock { $0 = today } }

    /// The last recorded day, or `nil`.
    public var today: CalendarDay? { day.withLock { $0 } }
}

/// How often a schedule recurs (CONTRACT.md "Scheduled inspections": once, daily, weekly, monthly); a newer
/// server's value is kept as sent (``/JQCKit/WireValue``).
public enum ScheduleFrequency: WireValue {
    /// `once`: a one-time schedule.
    case once
    /// `daily`.
    case daily
    /// `weekly`.
    case weekly
    /// `monthly`.
    case monthly
    /// A frequency this build does not know, as the server sent it.
    case other(String)

    /// CONTRACT.md's frequencies, in its order.
    public static let known: [ScheduleFrequency] = [.once, .daily, .weekly, .monthly]

    /// The wire string (CONTRACT.md's, or the server's own for ``other(_:)``).
    public var rawValue: String {
        switch self {
        case .once: "once"
        case .daily: "daily"
        case .weekly: "weekly"
        case .monthly: "monthly"
        case .other(let value): value
        }
    }
}
