import Foundation

/// Which kind of record a photo belongs to; also the upload's `entity_type` (CONTRACT.md, Photos:
/// `entity_type` ∈ issue, inspection).
public enum PhotoOwnerKind: String, Sendable, Codable, CaseIterable {
    /// An inspection's image or signature field (seed 001 §17: `formData[fieldId] = serverPath`).
    case inspection
    /// An issue's evidence photos (seed 001 §13–14: `photoServerPaths.append(serverPath)`).
    case issue
}

/// The record a photo belongs to: its kind, its local id and, for an inspection, the form field that holds
/// the photo (an image or signature field; a signature is captured as an image, SHELL.md `photo`).
///
/// As a query (``PhotoService/photos(for:)``, ``PhotoService/deletePhotos(for:)``), a `nil` ``fieldID``
/// matches every photo of the record; a field id matches that field's photos only.
public struct PhotoOwner: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The record's kind (and the upload's `entity_type`).
    public var kind: PhotoOwnerKind
    /// The owning record's local id (the inspection's or issue's `local_id`).
    public var localID: String
    /// The form field id (normalised string, rule 9) for an inspection photo; `nil` for an issue photo.
    public var fieldID: String?

    /// An owner.
    public init(kind: PhotoOwnerKind, localID: String, fieldID: String? = nil) {
        self.kind = kind
        self.localID = localID
        self.fieldID = fieldID
    }

    /// A photo for an inspection's image or signature field `fieldID`, or (with `nil`) every photo of it.
    public static func inspection(_ localID: String, field fieldID: String? = nil) -> PhotoOwner {
        PhotoOwner(kind: .inspection, localID: localID, fieldID: fieldID)
    }

    /// An issue's evidence photo.
    public static func issue(_ localID: String) -> PhotoOwner {
        PhotoOwner(kind: .issue, localID: localID)
    }

    /// The owning record alone (no field), e.g. for ``PhotoService/hasUnsettledPhotos(ownerKind:ownerLocalID:in:)``.
    public var record: PhotoOwner { PhotoOwner(kind: kind, localID: localID) }

    /// `inspection <id> field <f>` or `issue <id>`, for logs and messages.
    public var description: String {
        fieldID.map { "\(kind.rawValue) \(localID) field \($0)" } ?? "\(kind.rawValue) \(localID)"
    }
}
