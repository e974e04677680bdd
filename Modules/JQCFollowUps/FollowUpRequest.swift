import Foundation
import JQCKit

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

    /// Reads the contract's `inspection` object; `nil` without `id`, `template_id` or `facility_id`.
    public init?(json: JSONValue) {
        func int(_ key: String) -> Int? { json[key]?.intValue.map { Int($0) } }
        guard let id = int("id"), let template = int("template_id"), let facility = int("facility_id") else {
            return nil
        }
        self.init(
            serverID: id, templateID: template, templateName: json["template_name"]?.stringValue,
            facilityID: facility, facilityName: json["facility_name"]?.stringValue, areaID: int("area_id"),
            areaName: json["area_name"]?.stringValue, note: json["follow_up_note"]?.stringValue,
            inspectionDate: json["inspection_date"]?.stringValue,
            parentFormData: json["form_data"]?.objectValue ?? [:])
    }
}
