import Foundation
import JQCKit
import JQCNetwork
import JQCStorage

/// One pending inspection as the `inspections` push stage sends it (issue 17): its key, its outbox state, the
/// `POST /api/v1/inspections` body already written, and why it waits for its photos (rule 12), all read in
/// the list's one read transaction — no ``Inspection`` is built, no answer parsed when the stored
/// `form_data` can be sent as it stands.
struct InspectionPush: OutboxItem {
    /// The inspection's local id.
    let localID: String
    /// Its outbox columns.
    let outbox: OutboxState
    /// The POST body: the bytes ``InspectionPushStage/payload(for:)`` writes for the same row (`jsonData()`,
    /// sorted keys), or the same JSON value when the stored answers are not in that form.
    let body: Data
    /// The photo gate's sentence while its photos are unsettled, else `nil`.
    let photoWaitReason: String?

    var outboxKeys: [OutboxKey] { [OutboxKey(localID)] }

    /// The POST body of a row of ``InspectionStore/pushListSQL``, with the defaults ``InspectionStore`` reads a row with: the fields
    /// of ``InspectionPushStage/payload(for:)`` in its sorted key order; `form_data` is the stored text as it
    /// stands when ``/JQCNetwork/VerbatimJSON/isObject(_:refusing:)`` accepts it (no `local://` value, rule 10),
    /// else the stored answers parsed, stripped and written as the payload writes them.
    static func body(_ row: Row) -> Data {
        let created: Date = row["created_at"] ?? Date(timeIntervalSince1970: 0)
        let updated = max(row["updated_at"] ?? created, created)
        let completed: Date = row["completed_at"] ?? updated
        var out = "{"
        func member(_ key: String, _ text: String) {
            if out.utf8.count > 1 { out += "," }
            out += "\""
            out += key
            out += "\":"
            out += text
        }
        func string(_ value: String) -> String { JSONValue.string(value).jsonString() }
        func number(_ value: Double) -> String { JSONValue.double(value).jsonString() }
        let area: Int? = row["area_id"]
        if let area { member("area_id", String(Int64(area))) }
        member("completed_at", string(DateFormats.instantString(completed)))
        member("facility_id", String(Int64(row["facility_id"] ?? 0 as Int)))
        member("form_data", formData(row["form_data"] ?? "{}"))
        member("local_id", string(row["local_id"] ?? ""))
        let notes: String? = row["notes"]
        if let notes { member("notes", string(notes)) }
        let score: Double? = row["overall_score"]
        if let score { member("overall_score", number(score)) }
        let parent: Int? = row["parent_inspection_server_id"]
        if let parent { member("parent_inspection_id", String(Int64(parent))) }
        let schedule: Int? = row["scheduled_inspection_server_id"]
        if let schedule { member("scheduled_inspection_id", String(Int64(schedule))) }
        member("started_at", string(DateFormats.instantString(row["started_at"] ?? created)))
        member("status", "\"completed\"")
        let latitude: Double? = row["submit_latitude"]
        let longitude: Double? = row["submit_longitude"]
        if let latitude, let longitude {
            member("submit_latitude", number(latitude))
            member("submit_longitude", number(longitude))
        }
        member("template_id", String(Int64(row["template_id"] ?? 0 as Int)))
        out += "}"
        return Data(out.utf8)
    }

    /// `form_data` as the body carries it: the stored text when it can be sent as it stands, else as the
    /// payload writes it (an unreadable text is `{}`, as ``InspectionStore`` reads it).
    static func formData(_ stored: String) -> String {
        let text = stored.isEmpty ? "{}" : stored  // '' is a draft's marker; a submitted row never has it
        if VerbatimJSON.isObject(Data(text.utf8), refusing: "local://") { return text }
        let answers = (try? JSONValue.parse(text))?.objectValue ?? [:]
        return JSONValue.object(InspectionPushStage.stripLocalReferences(answers)).jsonString()
    }
}
