import Foundation
import JQCKit
import JQCNetwork
import JQCStorage

/// A local issue record (seed 001 `LocalIssue`), as a value (rule 68). Device-created issues (flagged during
/// an inspection, or standalone) and server-pulled ones (assigned to or reported by the inspector) share the
/// table; the server's Phase A–E and handler fields are optionals that default to `nil` (rule 46).
public struct Issue: Sendable, Hashable {
    /// The client's id (a lowercase UUID string), sent as `local_id` (SPEC.md §4 idempotent submission).
    public var localID: String
    /// The server's id once created there (or for a pulled issue). Rule 42's boundary: a record with a
    /// server id is server-pulled data as far as `clearServerPulledData()` is concerned.
    public var serverID: Int?
    /// The local id of the inspection it was flagged in; `""` for standalone and server-pulled issues
    /// (rules 31, 44).
    public var inspectionLocalID: String
    /// The inspection's server id, once known (sent as `inspection_id`).
    public var inspectionServerID: Int?
    /// The facility.
    public var facilityID: Int
    /// The facility's name, when known.
    public var facilityName: String?
    /// The area (copied from the inspection when flagged during one; rule 51).
    public var areaID: Int?
    /// The area's name, when known.
    public var areaName: String?
    /// `low`, `medium`, `high` or `critical`; a newer server's value is kept as sent (``/JQCKit/IssueSeverity/other(_:)``).
    public var severity: IssueSeverity
    /// What is wrong.
    public var description: String
    /// `open`, `in_progress` or `resolved` (the local mirror; a queued edit shows here at once); a newer
    /// server's value is kept as sent (``/JQCKit/IssueStatus/other(_:)``).
    public var status: IssueStatus
    /// Imported photo files on this device (absolute paths under `<data-dir>/photos`), cleared after the
    /// issue is submitted (rule 43).
    public var photoLocalPaths: [String]
    /// The evidence photos on the server: `photo_path` + `mobile_photo_paths`, never `result_photos` (rule 33).
    public var photoServerPaths: [String]
    /// The server's display URLs parallel to ``photoServerPaths`` (`photo_urls`, rule 67), when sent.
    public var photoServerURLs: [String]
    /// Resolution photos from the web (kept, never shown as evidence; rule 33).
    public var resultPhotos: [String]
    /// Resolution notes from web staff (Phase A).
    public var resultNotes: String?
    /// When the fix was verified, ISO 8601 (Phase A).
    public var verifiedAt: String?
    /// The verifier's note (Phase A).
    public var verificationNote: String?
    /// The reporter's display name (Phase A).
    public var reportedByName: String?
    /// The assignee's display name (Phase E).
    public var assignedToName: String?
    /// `internal`, `facility` or `vendor` ("Handled By"); a newer server's value is kept as sent.
    public var handlerType: IssueHandlerType?
    /// The handler's label as the server words it.
    public var handlerLabel: String?
    /// Facility handler's name.
    public var facilityHandlerName: String?
    /// Facility handler's contact.
    public var facilityHandlerContact: String?
    /// Facility handler's notes.
    public var facilityHandlerNotes: String?
    /// Vendor's name.
    public var vendorName: String?
    /// Vendor's contact.
    public var vendorContact: String?
    /// Vendor's notes.
    public var vendorNotes: String?
    /// The server's `created_at`, as sent.
    public var serverCreatedAt: String?
    /// The server's `updated_at`, as sent.
    public var serverUpdatedAt: String?
    /// The outbox state (`synced` for pulled issues): status, counted tries, last attempt, last failure (or
    /// a refused queued edit's sentence) and why it waits — the `issues` table's outbox columns.
    public var outbox: OutboxState
    /// When the record was created on this device.
    public var createdAt: Date
    /// When it was last written on this device.
    public var updatedAt: Date

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
    /// The last failure (or a refused queued edit), as a sentence (``/JQCStorage/OutboxState/error``).
    public var syncError: String? {
        get { outbox.error }
        set { outbox.error = newValue }
    }

    /// Whether the record came from the assigned-issues pull (rule 31: synced and not flagged in a local
    /// inspection).
    public var isServerPulled: Bool { syncStatus == .synced && inspectionLocalID.isEmpty }

    /// When the issue was raised, for ordering lists: the server's `created_at` (ISO 8601) when it sent one that
    /// reads as an instant, else ``createdAt`` (an issue made here and not yet on the server).
    public var listedAt: Date { serverCreatedAt.flatMap(DateFormats.instant(from:)) ?? createdAt }

    /// `server_id` when known, else the local id: how the shell names it.
    public var displayID: String { serverID.map(String.init) ?? localID }
}

extension Issue: OutboxItem {
    /// The row's key in the `issues` outbox: its `local_id`.
    public var outboxKeys: [OutboxKey] { [OutboxKey(localID)] }
}

/// A "Handled By" update (CONTRACT.md `PATCH /issues/<id>/handler`; seed 001 §11 "Handled By").
public struct IssueHandlerUpdate: Sendable, Hashable {
    /// `internal`, `facility` or `vendor` (``IssueService/updateHandler(id:_:)`` refuses any other).
    public var type: IssueHandlerType
    /// The facility handler's or vendor's name.
    public var name: String?
    /// Their contact.
    public var contact: String?
    /// Notes.
    public var notes: String?

    /// An update.
    public init(type: IssueHandlerType, name: String? = nil, contact: String? = nil, notes: String? = nil) {
        self.type = type
        self.name = name
        self.contact = contact
        self.notes = notes
    }

    /// The PATCH body with literal snake_case keys (rule 65): `handler_type` and, for `facility`,
    /// `facility_handler_*`; for `vendor`, `vendor_*`.
    public var body: JSONValue {
        var body: [String: JSONValue] = ["handler_type": .string(type.rawValue)]
        let prefix: String? =
            switch type {
            case .facility: "facility_handler_"
            case .vendor: "vendor_"
            case .internal, .other: nil
            }
        if let prefix {
            if let name { body[prefix + "name"] = .string(name) }
            if let contact { body[prefix + "contact"] = .string(contact) }
            if let notes { body[prefix + "notes"] = .string(notes) }
        }
        return .object(body)
    }

    /// The label the server would show: `Internal team`, `Facility: <name>`, `Vendor: <name>`.
    public var label: String {
        switch type {
        case .internal: return "Internal team"
        case .facility: return name.map { "Facility: \($0)" } ?? "Facility"
        case .vendor: return name.map { "Vendor: \($0)" } ?? "Vendor"
        case .other(let value): return value
        }
    }
}

/// One comment on an issue (CONTRACT.md `GET /issues/<id>/comments`).
public struct IssueComment: Sendable, Hashable, Decodable {
    /// The comment's server id.
    public var id: Int
    /// Who wrote it.
    public var authorName: String?
    /// The text.
    public var body: String
    /// When, ISO 8601.
    public var createdAt: String?
}

/// An issue as the server sends it (CONTRACT.md "Issues"), decoded with snake_case → camelCase (rule 65).
struct APIIssue: Decodable, Sendable, Hashable {
    var id: Int
    var localId: String?
    var inspectionId: Int?
    var facilityId: Int?
    var facilityName: String?
    var areaId: Int?
    var areaName: String?
    var severity: String?
    var description: String?
    var status: String?
    var photoPath: String?
    var mobilePhotoPaths: [String]?
    var resultPhotos: [String]?
    var photoUrls: [String]?
    var resultNotes: String?
    var verifiedAt: String?
    var verificationNote: String?
    var reportedByName: String?
    var assignedToName: String?
    var handlerType: String?
    var handlerLabel: String?
    var facilityHandlerName: String?
    var facilityHandlerContact: String?
    var facilityHandlerNotes: String?
    var vendorName: String?
    var vendorContact: String?
    var vendorNotes: String?
    var createdAt: String?
    var updatedAt: String?

    /// The evidence photos: `photo_path` + `mobile_photo_paths`, never `result_photos` (rule 33).
    var evidencePaths: [String] {
        (photoPath.map { $0.isEmpty ? [] : [$0] } ?? []) + (mobilePhotoPaths ?? [])
    }
}

extension APIIssue {
    /// The same value ``ReplyDecoder`` decodes from `value`, read straight from the members (issue 17: the
    /// generic decoder converts every member's key for every issue of a pull, ~1.2 million instructions an
    /// issue), or `nil` when this reader cannot be sure it would agree: `value` not an object, a key that is
    /// not plain snake_case (lower-case letters, single inner underscores: then each property has exactly one
    /// key it can come from), or a member of another kind than its property's (a number for an `Int`
    /// that is not an integer in range, a list with a non-string). The caller then decodes with
    /// ``ReplyDecoder``, which also says what is wrong and where.
    static func fast(_ value: JSONValue) -> APIIssue? {
        guard case .object(let members) = value, members.keys.allSatisfy(isPlainSnakeCase) else { return nil }
        var unreadable = false
        func int(_ key: String) -> Int? {
            switch members[key] {
            case nil, .null?: return nil
            case .int(let number)?:
                if let exact = Int(exactly: number) { return exact }
            default: break
            }
            unreadable = true
            return nil
        }
        func string(_ key: String) -> String? {
            switch members[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default:
                unreadable = true
                return nil
            }
        }
        func strings(_ key: String) -> [String]? {
            switch members[key] {
            case nil, .null?: return nil
            case .array(let elements)?:
                var texts: [String] = []
                texts.reserveCapacity(elements.count)
                for element in elements {
                    guard case .string(let text) = element else {
                        unreadable = true
                        return nil
                    }
                    texts.append(text)
                }
                return texts
            default:
                unreadable = true
                return nil
            }
        }
        guard let id = int("id") else { return nil }
        let issue = APIIssue(
            id: id, localId: string("local_id"), inspectionId: int("inspection_id"), facilityId: int("facility_id"),
            facilityName: string("facility_name"), areaId: int("area_id"), areaName: string("area_name"),
            severity: string("severity"), description: string("description"), status: string("status"),
            photoPath: string("photo_path"), mobilePhotoPaths: strings("mobile_photo_paths"),
            resultPhotos: strings("result_photos"), photoUrls: strings("photo_urls"),
            resultNotes: string("result_notes"), verifiedAt: string("verified_at"),
            verificationNote: string("verification_note"), reportedByName: string("reported_by_name"),
            assignedToName: string("assigned_to_name"), handlerType: string("handler_type"),
            handlerLabel: string("handler_label"), facilityHandlerName: string("facility_handler_name"),
            facilityHandlerContact: string("facility_handler_contact"),
            facilityHandlerNotes: string("facility_handler_notes"), vendorName: string("vendor_name"),
            vendorContact: string("vendor_contact"), vendorNotes: string("vendor_notes"),
            createdAt: string("created_at"), updatedAt: string("updated_at"))
        return unreadable ? nil : issue
    }

    /// `value` decoded by ``fast(_:)``, else by ``ReplyDecoder`` at `path` (whose errors it throws).
    /// - Throws: ``/JQCNetwork/ReplyShapeError`` or ``/JQCNetwork/APIError`` from ``ReplyDecoder``.
    static func decode(_ value: JSONValue, at path: ReplyPath) throws -> APIIssue {
        if let issue = fast(value) { return issue }
        return try ReplyDecoder.decode(APIIssue.self, from: value, at: path)
    }

    /// Lower-case ASCII letters with single underscores between them (`local_id`, `id`): a key the decoder's
    /// snake_case conversion maps one-to-one onto a property name.
    private static func isPlainSnakeCase(_ key: String) -> Bool {
        var previous: UInt8 = UInt8(ascii: "_")
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): break
            case UInt8(ascii: "_") where previous != UInt8(ascii: "_"): break
            default: return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: "_")
    }
}
