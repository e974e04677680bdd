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

    /// The POST body of a row of ``InspectionStore/pushListSQL`` (columns by position, in
    /// ``InspectionStore/pushColumns``' order), with the defaults ``InspectionStore`` reads a row with: the
    /// fields of ``InspectionPushStage/payload(for:)`` in its sorted key order; `form_data` is the stored text as
    /// it stands when ``/JQCNetwork/VerbatimJSON/isObject(_:refusing:)`` accepts it (no `local://` value, rule
    /// 10), else the stored answers parsed, stripped and written as the payload writes them; an instant stored in
    /// the store's own form is rewritten as text (``instantText(_:)``), else read and formatted.
    static func body(_ row: Row) -> Data {
        let form = formData(row[4] ?? "{}")
        var out: [UInt8] = []
        out.reserveCapacity(form.utf8.count + 512)
        out.append(UInt8(ascii: "{"))
        func member(_ key: String) {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: key.utf8)
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
        }
        func string(_ value: String) {
            // As JSONValue writes a string: most need no escape and are copied whole.
            if value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                out.append(contentsOf: JSONValue.string(value).jsonString().utf8)
            } else {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: value.utf8)
                out.append(UInt8(ascii: "\""))
            }
        }
        func number(_ value: Double) { out.append(contentsOf: JSONValue.double(value).jsonString().utf8) }
        func integer(_ value: Int) { out.append(contentsOf: String(Int64(value)).utf8) }
        func instant(_ column: Int, orElse fallback: () -> Date) {
            let stored: String? = row[column]
            if let stored, let text = instantText(stored) {
                string(text)
            } else {
                let date: Date? = row[column]
                string(DateFormats.instantString(date ?? fallback()))
            }
        }
        func created() -> Date { row[13] ?? Date(timeIntervalSince1970: 0) }
        if let area: Int = row[3] {
            member("area_id")
            integer(area)
        }
        member("completed_at")
        instant(7) { max(row[14] ?? created(), created()) }  // `completedAt ?? updatedAt`
        member("facility_id")
        integer(row[2] ?? 0)
        member("form_data")
        out.append(contentsOf: form.utf8)
        member("local_id")
        string(row[0] ?? "")
        if let notes: String = row[12] {
            member("notes")
            string(notes)
        }
        if let score: Double = row[5] {
            member("overall_score")
            number(score)
        }
        if let parent: Int = row[8] {
            member("parent_inspection_id")
            integer(parent)
        }
        if let schedule: Int = row[9] {
            member("scheduled_inspection_id")
            integer(schedule)
        }
        member("started_at")
        instant(6) { created() }
        member("status")
        out.append(contentsOf: "\"completed\"".utf8)
        if let latitude: Double = row[10], let longitude: Double = row[11] {
            member("submit_latitude")
            number(latitude)
            member("submit_longitude")
            number(longitude)
        }
        member("template_id")
        integer(row[1] ?? 0)
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    /// `DateFormats.instantString` of an instant stored as JQCStorage writes one (UTC `yyyy-MM-dd HH:mm:ss.SSS`),
    /// by rearranging its text (`yyyy-MM-ddTHH:mm:ssZ`, the milliseconds dropped as the format drops them), or
    /// `nil` for any other text — another shape, a year before 1970, a day or time out of range — which is read
    /// as a date and formatted instead (pinned against `DateFormats.instantString` in `InspectionPushStoreTests`).
    static func instantText(_ stored: String) -> String? {
        guard let parts = StoredDateParts(stored) else { return nil }
        var stored = stored
        return stored.withUTF8 { bytes -> String? in
            guard bytes.count == 23, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                bytes[19] == UInt8(ascii: ".")
            else { return nil }
            let (year, month, day) = (parts.year, parts.month, parts.day)
            guard (1970...9999).contains(year), (1...12).contains(month), (0...23).contains(parts.hour),
                (0...59).contains(parts.minute), (0...59).contains(parts.second)
            else { return nil }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard (1...days).contains(day) else { return nil }
            return String(unsafeUninitializedCapacity: 20) { buffer in
                for index in 0..<19 { buffer[index] = bytes[index] }
                buffer[10] = UInt8(ascii: "T")
                buffer[19] = UInt8(ascii: "Z")
                return 20
            }
        }
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
