import Foundation

/// Which kind of record a photo belongs to: an open set, each kind declared by the feature that owns such
/// records (`inspection` in JQCInspections, `issue` in JQCIssues; SPEC.md §2: an earlier feature never
/// names a later one) and registered with the ``PhotoService`` with its rules
/// (``PhotoService/registerOwnerKind(_:)``). Stored as its raw value in `pending_photos.owner_kind`.
public struct PhotoOwnerKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The stored name (`inspection`, `issue`): lower-case, stable once shipped.
    public let rawValue: String

    /// A kind named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A kind named `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The raw value.
    public var description: String { rawValue }

    /// Decodes the raw value (a plain string).
    /// - Throws: `DecodingError` when it is not a string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the raw value as a plain string.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// How the photos feature treats one owner kind, declared by the feature that owns it.
public struct PhotoOwnerRegistration: Sendable {
    /// Whether a photo names the form field it answers.
    public enum FieldUse: Sendable, Equatable {
        /// Every photo answers one field (an image or signature field holds one answer: a new photo
        /// supersedes the field's unsettled ones).
        case required
        /// Photos belong to the record itself; a field id is refused.
        case none
    }

    /// The kind.
    public var kind: PhotoOwnerKind
    /// The upload's `entity_type` (CONTRACT.md, Photos: `issue`, `inspection`); the kind's raw value by default.
    public var entityType: String
    /// Whether photos of this kind name a field.
    public var fields: FieldUse
    /// Told about every uploaded photo of the kind, inside the upload's transaction; `nil` for none.
    public var listener: (any PhotoUploadListener)?
    /// Says whether an owner of the kind is missing, unsynced or synced; `nil` counts every owner unsynced.
    public var ownerStatus: (any PhotoOwnerStatusProvider)?

    /// A registration.
    public init(
        _ kind: PhotoOwnerKind, entityType: String? = nil, fields: FieldUse, listener: (any PhotoUploadListener)? = nil,
        ownerStatus: (any PhotoOwnerStatusProvider)? = nil
    ) {
        self.kind = kind
        self.entityType = entityType ?? kind.rawValue
        self.fields = fields
        self.listener = listener
        self.ownerStatus = ownerStatus
    }
}

/// The record a photo belongs to: its kind, its local id and, for an inspection, the form field that holds
/// the photo (an image or signature field; a signature is captured as an image, SHELL.md `photo`).
///
/// As a query (``PhotoService/photos(for:)``, ``PhotoService/deletePhotos(for:)``), a `nil` ``fieldID``
/// matches every photo of the record; a field id matches that field's photos only.
public struct PhotoOwner: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The record's kind (its registration gives the upload's `entity_type`).
    public var kind: PhotoOwnerKind
    /// The owning record's local id (its `local_id`).
    public var localID: String
    /// The form field id (normalised string, rule 9) for a kind whose photos answer fields; `nil` otherwise.
    public var fieldID: String?

    /// An owner.
    public init(kind: PhotoOwnerKind, localID: String, fieldID: String? = nil) {
        self.kind = kind
        self.localID = localID
        self.fieldID = fieldID
    }

    /// The owning record alone (no field), e.g. for ``PhotoService/hasUnsettledPhotos(ownerKind:ownerLocalID:in:)``.
    public var record: PhotoOwner { PhotoOwner(kind: kind, localID: localID) }

    /// `inspection <id> field <f>` or `issue <id>`, for logs and messages.
    public var description: String {
        fieldID.map { "\(kind.rawValue) \(localID) field \($0)" } ?? "\(kind.rawValue) \(localID)"
    }
}
