import Foundation
import JQCKit
import JQCStorage

/// Where a photo stands in its lifecycle (seed 001 §17 "PendingPhoto lifecycle").
public enum PhotoUploadState: String, Sendable, Codable, CaseIterable {
    /// Imported on this device, not uploaded yet (or its upload failed for good: see ``PendingPhoto/syncStatus``).
    case pending
    /// The server has the file (``PendingPhoto/serverPath`` is set) but its owner has not been updated yet
    /// (a listener failed; the photos stage retries the listeners without uploading again).
    case uploaded
    /// Uploaded and its owner updated (inspection field = server path; issue photo paths appended).
    case settled
}

/// One photo of the outbox, as a value (rule 68: never a live row). Rows live in the `pending_photos`
/// table (namespace `photos`); the file is `<data-dir>/photos/<id>.jpg`.
public struct PendingPhoto: Sendable, Hashable, Identifiable {
    /// The photo's id; also the file name (`<id>.jpg`) and the sentinel (`local://photos/<id>.jpg`).
    public var id: UUID
    /// The record the photo belongs to (and, for an inspection, its field).
    public var owner: PhotoOwner
    /// The imported JPEG on this device (`<data-dir>/photos/<id>.jpg`); derived from the id and the
    /// photos folder, never from server data. The file may be gone once the owner has synced.
    public var localFile: URL
    /// The upload's `entity_type` (CONTRACT.md, Photos: `inspection`, `issue`), from the owner kind's registration.
    public var entityType: String
    /// When the photo was taken (sent as `captured_at`, ISO 8601).
    public var capturedAt: Date
    /// When it was imported.
    public var createdAt: Date
    /// Lifecycle state.
    public var state: PhotoUploadState
    /// The server's relative path (`uploads/<entity>_photos/<hex>.jpg`) once uploaded.
    public var serverPath: String?
    /// The server's absolute display URL, as returned by the upload (rule 67), once uploaded.
    public var serverURL: String?
    /// The outbox state: `pending` until settled, then `synced`; `failed` when refused or out of tries; counted
    /// tries (real server answers; 5 fail the photo), last attempt, last failure, why it waits.
    public var outbox: OutboxState
    /// Width of the imported JPEG, px.
    public var width: Int
    /// Height of the imported JPEG, px.
    public var height: Int
    /// Size of the imported JPEG, bytes.
    public var bytes: Int

    /// Outbox status (``/JQCStorage/OutboxState/status``).
    public var syncStatus: SyncStatus { outbox.status }
    /// Counted tries (``/JQCStorage/OutboxState/attempts``).
    public var attempts: Int { outbox.attempts }
    /// When it was last tried (``/JQCStorage/OutboxState/lastAttemptAt``).
    public var lastAttemptAt: Date? { outbox.lastAttemptAt }
    /// The last failure, as a sentence (``/JQCStorage/OutboxState/error``).
    public var error: String? { outbox.error }

    /// The form answer that stands for this photo until it is uploaded: `local://photos/<id>.jpg`
    /// (seed 001 §17 "local:// sentinel": `"local://<path>"`, here the path relative to the data folder).
    public var sentinel: String { PhotoSentinel.make(id) }

    /// Whether the owner still waits on this photo (not settled: pending, uploaded or failed).
    public var isUnsettled: Bool { state != .settled }
}

extension PendingPhoto: OutboxItem {
    /// The row's key in `pending_photos`: its id (upper-case UUID text).
    public var outboxKeys: [OutboxKey] { [OutboxKey(id.uuidString)] }
}

/// The `local://` sentinel written into a form answer while a photo waits for upload (seed 001 §17; rule 10:
/// JQCInspections strips any `local://` value before a submit).
public enum PhotoSentinel {
    /// The scheme prefix, `local://`.
    public static let prefix = "local://"

    /// `local://photos/<id>.jpg` (upper-case UUID, as `UUID.uuidString` writes it).
    public static func make(_ id: UUID) -> String { "\(prefix)photos/\(id.uuidString).jpg" }

    /// Whether an answer is a device-local reference (any `local://` value, ours or not).
    public static func isLocal(_ value: String) -> Bool { value.hasPrefix(prefix) }

    /// The photo id inside a sentinel made by ``make(_:)``.
    /// - Returns: the id, or `nil` when `value` is not exactly such a sentinel.
    public static func photoID(_ value: String) -> UUID? {
        guard value.hasPrefix(prefix + "photos/"), value.hasSuffix(".jpg") else { return nil }
        let middle = value.dropFirst((prefix + "photos/").count).dropLast(4)
        return UUID(uuidString: String(middle))
    }
}

/// What a ``PhotoUploadListener`` is told when a photo has been uploaded.
public struct UploadedPhoto: Sendable, Hashable {
    /// The photo's id.
    public var id: UUID
    /// The owning record (and field, for an inspection photo).
    public var owner: PhotoOwner
    /// The form field id for an inspection photo (same as `owner.fieldID`); `nil` for an issue photo.
    public var fieldID: String? { owner.fieldID }
    /// The server's relative path (`uploads/<entity>_photos/<hex>.jpg`): what goes into `form_data`
    /// (inspection) or `photoServerPaths` (issue).
    public var serverPath: String
    /// The server's absolute display URL, when it returned one (rule 67); for display only, never stored
    /// in an answer.
    public var serverURL: String?
    /// The sentinel the owner held until now (`local://photos/<id>.jpg`), to be replaced by ``serverPath``.
    public var localSentinel: String

    /// A notification value.
    public init(id: UUID, owner: PhotoOwner, serverPath: String, serverURL: String?, localSentinel: String) {
        self.id = id
        self.owner = owner
        self.serverPath = serverPath
        self.serverURL = serverURL
        self.localSentinel = localSentinel
    }
}
