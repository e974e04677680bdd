import Foundation
import JQCKit
import JQCStorage

/// One line of an inspection list (`drafts`, `inspections`; SHELL.md): an inspection's identity, names, state,
/// score and outbox state, WITHOUT its answers and its pinned schema. A list shows neither, and reading them
/// means parsing two JSON documents per row (issue 17: `drafts` on a 100,000-inspection store).
///
/// Built by ``InspectionStore/listings(draftsOnly:)`` from the `inspections` row's plain columns, or from a
/// full ``Inspection`` with ``init(_:)`` (the same values: a listing never says anything its inspection does not).
public struct InspectionListing: Sendable, Hashable {
    /// The client's id (``Inspection/localID``).
    public var localID: String
    /// The server's id once synced.
    public var serverID: Int?
    /// The template it was started from.
    public var templateID: Int
    /// The template's name when started.
    public var templateName: String
    /// The facility.
    public var facilityID: Int
    /// The facility's name when started.
    public var facilityName: String
    /// The area, when chosen.
    public var areaID: Int?
    /// The area's name when started.
    public var areaName: String?
    /// `draft` or `completed`.
    public var status: InspectionStatus
    /// The outbox state: status, tries, last failure, why it waits, and who made it for which server.
    public var outbox: OutboxState
    /// The pinned schema's hash (JQCForms `FormSchema.hash`); the schema itself is not read.
    public var schemaHash: String
    /// The score (0…100) computed at submit, or `nil`.
    public var overallScore: Double?
    /// When the record was created (the list's order: newest first).
    public var createdAt: Date

    /// The outbox status (``/JQCStorage/OutboxState/status``).
    public var syncStatus: SyncStatus { outbox.status }
    /// The last failure, as a sentence (``/JQCStorage/OutboxState/error``).
    public var syncError: String? { outbox.error }
    /// The badge shown in lists (seed 000 §11 "Status badge map").
    public var badge: InspectionBadge { InspectionBadge(status: status, syncStatus: syncStatus) }
}

// In an extension, so the struct keeps its memberwise initialiser (``InspectionStore`` builds a listing from a
// row's values with it).
extension InspectionListing {
    /// The listing of a full inspection: the same values, field for field.
    public init(_ inspection: Inspection) {
        self.init(
            localID: inspection.localID, serverID: inspection.serverID, templateID: inspection.templateID,
            templateName: inspection.templateName, facilityID: inspection.facilityID,
            facilityName: inspection.facilityName, areaID: inspection.areaID, areaName: inspection.areaName,
            status: inspection.status, outbox: inspection.outbox, schemaHash: inspection.schemaHash,
            overallScore: inspection.overallScore, createdAt: inspection.createdAt)
    }
}
