import Foundation
import JQCForms
import JQCKit
import JQCStorage

/// A local inspection record (seed 001 `LocalInspection`), as a value (rule 68).
public struct Inspection: Sendable, Hashable {
    /// The client's id (a lowercase UUID string), sent as `local_id` (SPEC.md §4 idempotent submission).
    public var localID: String
    /// The server's id once synced.
    public var serverID: Int?
    /// The template it was started from.
    public var templateID: Int
    /// The template's name when started.
    public var templateName: String
    /// The facility.
    public var facilityID: Int
    /// The facility's name when started (kept for display after a prune).
    public var facilityName: String
    /// The area, when chosen.
    public var areaID: Int?
    /// The area's name when started.
    public var areaName: String?
    /// The contract (project) the facility belonged to when started.
    public var projectID: Int?
    /// `draft` or `completed`.
    public var status: InspectionStatus
    /// The outbox state (drafts are `pending`, as in the seed; only completed ones are sent): status, counted
    /// tries, last attempt, last failure and why it waits (the `inspections` table's outbox columns).
    public var outbox: OutboxState
    /// The answers: field-id string → JSON value.
    public var formData: [String: JSONValue]
    /// The template schema pinned at start (SPEC.md §4): scoring, validation and `form` use it.
    public var schemaSnapshot: JSONValue
    /// The pinned schema's hash (JQCForms `FormSchema.hash`).
    public var schemaHash: String
    /// The score (0…100) computed at submit on the pinned schema, or `nil` when nothing counted.
    public var overallScore: Double?
    /// When the inspection was started.
    public var startedAt: Date
    /// When it was submitted.
    public var completedAt: Date?
    /// The parent's local id, for a re-inspection started from a local parent (seed 001 §15).
    public var parentInspectionLocalID: String?
    /// The parent's server id, for a re-inspection (`parent_inspection_id`).
    public var parentInspectionServerID: Int?
    /// The schedule it fulfils (`scheduled_inspection_id`).
    public var scheduledInspectionServerID: Int?
    /// GPS at submit, when given (rule 53: optional, never blocks submit).
    public var submitLatitude: Double?
    /// GPS at submit, when given.
    public var submitLongitude: Double?
    /// Free-text notes.
    public var notes: String?
    /// Mirror of the server's `follow_up_required` (set by the follow-up pull; cleared at a re-inspection's submit).
    public var followUpRequired: Bool
    /// Mirror of the server's `follow_up_note`.
    public var followUpNote: String?
    /// When the record was created.
    public var createdAt: Date
    /// When it was last written.
    public var updatedAt: Date

    /// The pinned schema, read.
    public var schema: FormSchema { FormSchema(json: schemaSnapshot) }

    /// The outbox status (``/JQCStorage/OutboxState/status``).
    public var syncStatus: SyncStatus {
        get { outbox.status }
        set { outbox.status = newValue }
    }
    /// Counted tries: real server answers; the 5-try limit (``/JQCStorage/OutboxState/attempts``).
    public var syncAttempts: Int {
        get { outbox.attempts }
        set { outbox.attempts = newValue }
    }
    /// When it was last tried (``/JQCStorage/OutboxState/lastAttemptAt``).
    public var lastAttemptAt: Date? {
        get { outbox.lastAttemptAt }
        set { outbox.lastAttemptAt = newValue }
    }
    /// The last failure, as a sentence (``/JQCStorage/OutboxState/error``).
    public var syncError: String? {
        get { outbox.error }
        set { outbox.error = newValue }
    }

    /// The badge shown in lists (seed 000 §11 "Status badge map").
    public var badge: InspectionBadge { InspectionBadge(status: status, syncStatus: syncStatus) }
}

/// The list badge of an inspection (seed 000 §11): draft → Draft (blue); completed + pending → Pending
/// Sync (orange); completed + synced → Completed (green); failed → Sync Failed (red).
public enum InspectionBadge: String, Sendable, Hashable, CaseIterable {
    /// A draft, whatever its sync state.
    case draft
    /// Submitted, waiting for the outbox.
    case pendingSync = "pending_sync"
    /// The server has it.
    case completed
    /// Refused or out of tries.
    case syncFailed = "sync_failed"

    /// The badge for a status pair.
    public init(status: InspectionStatus, syncStatus: SyncStatus) {
        switch (status, syncStatus) {
        case (.draft, _): self = .draft
        case (.completed, .pending): self = .pendingSync
        case (.completed, .synced): self = .completed
        case (.completed, .failed): self = .syncFailed
        }
    }

    /// The label: `Draft`, `Pending Sync`, `Completed`, `Sync Failed`.
    public var label: String {
        switch self {
        case .draft: "Draft"
        case .pendingSync: "Pending Sync"
        case .completed: "Completed"
        case .syncFailed: "Sync Failed"
        }
    }

    /// The colour name: `blue`, `orange`, `green`, `red`.
    public var colour: String {
        switch self {
        case .draft: "blue"
        case .pendingSync: "orange"
        case .completed: "green"
        case .syncFailed: "red"
        }
    }
}

/// What starting an inspection needs. Schedules and follow-ups (later features) fill the link fields and
/// `initialAnswers` (re-inspection prefill) before calling ``InspectionService/start(_:)``.
public struct StartRequest: Sendable, Hashable {
    /// The template (must be cached and active).
    public var templateID: Int
    /// The facility (must be cached and active).
    public var facilityID: Int
    /// The area (must be one of the facility's), or `nil`.
    public var areaID: Int?
    /// The parent's local id for a re-inspection of a local parent.
    public var parentInspectionLocalID: String?
    /// The parent's server id for a re-inspection.
    public var parentInspectionServerID: Int?
    /// The schedule being started.
    public var scheduledInspectionServerID: Int?
    /// Answers to start with (re-inspection prefill), field-id string → value.
    public var initialAnswers: [String: JSONValue]
    /// Notes.
    public var notes: String?

    /// A start request.
    public init(
        templateID: Int, facilityID: Int, areaID: Int? = nil, parentInspectionLocalID: String? = nil,
        parentInspectionServerID: Int? = nil, scheduledInspectionServerID: Int? = nil,
        initialAnswers: [String: JSONValue] = [:], notes: String? = nil
    ) {
        self.templateID = templateID
        self.facilityID = facilityID
        self.areaID = areaID
        self.parentInspectionLocalID = parentInspectionLocalID
        self.parentInspectionServerID = parentInspectionServerID
        self.scheduledInspectionServerID = scheduledInspectionServerID
        self.initialAnswers = initialAnswers
        self.notes = notes
    }
}

/// A GPS fix at submit (SPEC.md §3 `LocationProvider`; the shell's `--gps LAT,LON`).
public struct Coordinate: Sendable, Hashable {
    /// Degrees, −90…90.
    public var latitude: Double
    /// Degrees, −180…180.
    public var longitude: Double

    /// A fix.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Parses `LAT,LON`, or returns `nil` when it is not two numbers in range.
    public init?(text: String) {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]),
            (-90...90).contains(lat), (-180...180).contains(lon)
        else { return nil }
        self.init(latitude: lat, longitude: lon)
    }
}

/// How a re-inspection's submit cleared its parent's follow-up flag (seed 000 §14 resolution order; rule 15).
public enum FollowUpClearing: Sendable, Hashable {
    /// The inspection is not a re-inspection: nothing to clear.
    case notAReinspection
    /// Cleared on the local parent matched by its local id (step 1).
    case clearedByLocalID(String)
    /// Cleared on the local parent matched by its server id (step 2).
    case clearedByServerID(String)
    /// Cleared on the only flagged local inspection of the same template and facility (step 3).
    case clearedByTemplateAndFacility(String)
    /// Step 3 matched several flagged inspections: nothing was cleared (rule 15); the server clears the
    /// right one when the re-inspection syncs.
    case ambiguous(candidates: Int)
    /// The parent is not on this device; the server clears its flag when the re-inspection syncs.
    case parentNotLocal
}

/// What a submit did.
public struct SubmitResult: Sendable, Hashable {
    /// The inspection as stored.
    public var inspection: Inspection
    /// The parent follow-up flag outcome.
    public var followUp: FollowUpClearing
}

extension Inspection: OutboxItem {
    /// The row's key in the `inspections` outbox: its `local_id`.
    public var outboxKeys: [OutboxKey] { [OutboxKey(localID)] }
}
