import Foundation
import JQCKit
import JQCNetwork

/// An outstanding follow-up request (seed 001 `LocalFollowUpRequest`; CONTRACT.md `GET /inspections
/// ?follow_up_required=true`, rule 78), as a value (rule 68). It is keyed by the PARENT inspection's server
/// id and carries a snapshot of the parent's answers so a re-inspection is prefilled offline, even when the
/// parent is not on this device (rule 79).
public struct FollowUpRequest: Sendable, Hashable {
    /// The parent inspection's server id.
    public var serverID: Int
    /// The parent's template (the re-inspection's template; its schema drives the prefill exclusions).
    public var templateID: Int
    /// The template's name as the server sent it.
    public var templateName: String?
    /// The parent's facility.
    public var facilityID: Int
    /// The facility's name as the server sent it.
    public var facilityName: String?
    /// The parent's area, if any.
    public var areaID: Int?
    /// The area's name as the server sent it.
    public var areaName: String?
    /// The server's `follow_up_note`.
    public var note: String?
    /// The parent's `inspection_date` (`yyyy-MM-dd`, the server's day).
    public var inspectionDate: String?
    /// The parent's raw `form_data`, values exactly as sent (arrays stay arrays: rule 79).
    public var parentFormData: [String: JSONValue]
    /// Hidden locally because a re-inspection of it was submitted here; every pull clears it (rule 78: a
    /// display flag, never state).
    public var fulfilledLocally: Bool

    /// A request.
    public init(
        serverID: Int, templateID: Int, templateName: String? = nil, facilityID: Int, facilityName: String? = nil,
        areaID: Int? = nil, areaName: String? = nil, note: String? = nil, inspectionDate: String? = nil,
        parentFormData: [String: JSONValue] = [:], fulfilledLocally: Bool = false
    ) {
        self.serverID = serverID
        self.templateID = templateID
        self.templateName = templateName
        self.facilityID = facilityID
        self.facilityName = facilityName
        self.areaID = areaID
        self.areaName = areaName
        self.note = note
        self.inspectionDate = inspectionDate
        self.parentFormData = parentFormData
        self.fulfilledLocally = fulfilledLocally
    }

    /// Reads the contract's `inspection` object; `nil` when ``init(reply:at:)`` refuses it.
    public init?(json: JSONValue) {
        guard let read = try? FollowUpRequest(reply: json, at: ReplyPath()) else { return nil }
        self = read
    }

    /// Reads the contract's `inspection` object at `path`: `id`, `template_id` and `facility_id` are required;
    /// every member present must have its type, `form_data` an object (issue 21).
    /// - Throws: ``/JQCNetwork/ReplyShapeError`` naming the member's path.
    public init(reply: JSONValue, at path: ReplyPath) throws {
        let fields = try ReplyFields(reply, at: path)
        self.init(
            serverID: try fields.int("id"), templateID: try fields.int("template_id"),
            templateName: try fields.optionalString("template_name"), facilityID: try fields.int("facility_id"),
            facilityName: try fields.optionalString("facility_name"), areaID: try fields.optionalInt("area_id"),
            areaName: try fields.optionalString("area_name"), note: try fields.optionalString("follow_up_note"),
            inspectionDate: try fields.optionalString("inspection_date"),
            parentFormData: try fields.optionalObject("form_data") ?? [:])
    }
}
