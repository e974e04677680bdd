import Foundation
import JQCStorage

/// Told when a photo has been uploaded, inside the same write transaction that records the server path
/// (SPEC.md §2: news goes up through hooks). JQCInspections replaces the `local://` sentinel in the
/// inspection's `form_data` with the server path (seed 001 §17); JQCIssues appends the path to the issue's
/// photo server paths (seed 001 §17 "Multi-photo issue submission sequence").
///
/// The composition root registers listeners per owner kind (``PhotoService/register(_:for:)``); every
/// listener of the photo's kind is called, in registration order. When one throws, the transaction rolls
/// back; the photo is then recorded as ``PhotoUploadState/uploaded`` (server path kept, never uploaded
/// again) and the listeners are called again on the next photos stage.
public protocol PhotoUploadListener: Sendable {
    /// Updates the owner for an uploaded photo. Must be idempotent (it may be called again after a
    /// failed attempt) and must write only through `db`.
    /// - Parameters:
    ///   - photo: the photo's id, owner, field, server path, display URL and former sentinel.
    ///   - db: the open write transaction.
    /// - Throws: any error; the transaction is rolled back and the photo retried later (the error's text
    ///   is recorded as the photo's reason).
    func photoUploaded(_ photo: UploadedPhoto, in db: Database) throws
}

/// Where a photo's owning record stands, as its feature sees it.
public enum PhotoOwnerState: String, Sendable, Equatable {
    /// The record no longer exists (a deleted draft): its photos are removed with their files.
    case missing
    /// The record exists and the server does not have it yet: its photos and files are kept.
    case unsynced
    /// The server has the record: the local files of its settled photos may be deleted (seed 001 §17,
    /// rule 43).
    case synced
}

/// Answers "where does this owner stand?" for one owner kind, so the photos stage can remove photos of
/// deleted records and release files of synced ones without knowing the later features (SPEC.md §2).
///
/// Registered by the composition root (``PhotoService/register(_:for:)``). Without a provider for a kind,
/// that kind's owners count as ``PhotoOwnerState/unsynced``: nothing is removed. Owners may instead call
/// ``PhotoService/deletePhotos(for:in:)`` when they delete a draft and ``PhotoService/releaseFiles(for:)``
/// after their push; both ways are safe together.
public protocol PhotoOwnerStatusProvider: Sendable {
    /// The owner's state, read inside the photos stage's transaction.
    /// - Parameters:
    ///   - localID: the owning record's local id.
    ///   - db: an open transaction.
    /// - Throws: the store's error.
    func ownerState(localID: String, in db: Database) throws -> PhotoOwnerState
}
