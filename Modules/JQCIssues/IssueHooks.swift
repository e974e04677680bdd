import Foundation
import JQCFacilities
import JQCInspections
import JQCPhotos
import JQCStorage

/// Appends an uploaded issue photo's server path to the issue's photo server paths (seed 001 §17),
/// idempotently. Registered by the composition root for `.issue` photos.
public struct IssuePhotoListener: PhotoUploadListener {
    private let store: IssueStore

    /// A listener writing into `store`.
    public init(store: IssueStore) { self.store = store }

    /// Appends the path (once).
    /// - Throws: `DatabaseError`.
    public func photoUploaded(_ photo: UploadedPhoto, in db: Database) throws {
        guard photo.owner.kind == .issue else { return }
        try store.appendServerPhoto(db, localID: photo.owner.localID, path: photo.serverPath, url: photo.serverURL)
    }
}

/// Where an issue stands for the photos stage: `missing` (deleted), `synced`, else `unsynced`.
public struct IssuePhotoOwnerStatus: PhotoOwnerStatusProvider {
    private let store: IssueStore

    /// A provider over `store`.
    public init(store: IssueStore) { self.store = store }

    /// The issue's state.
    /// - Throws: `DatabaseError`.
    public func ownerState(localID: String, in db: Database) throws -> PhotoOwnerState {
        guard let issue = try store.issue(db, localID: localID) else { return .missing }
        return issue.syncStatus == .synced ? .synced : .unsynced
    }
}

extension IssueService: InspectionDraftDeletionHook {
    /// Deleting a draft deletes its unsynced issues and their photo rows, in the deletion transaction
    /// (seed 001 §11.3).
    /// - Throws: `DatabaseError`.
    public func draftDeleting(localID: String, db: Database) throws {
        var files: [URL] = []
        for issue in try store.issues(db, inspectionLocalID: localID) where issue.syncStatus != .synced {
            files += try photos.deletePhotos(for: .issue(issue.localID), in: db)
            try store.delete(db, localID: issue.localID)
        }
        doomedFiles.withLock { $0[localID] = files }
    }

    /// Removes the deleted photos' files after the commit.
    public func draftDeleted(localID: String) {
        photos.removeFiles(doomedFiles.withLock { $0.removeValue(forKey: localID) } ?? [])
    }
}

/// Unsynced issues keep a pruned facility as inactive (seed 001 §8.4).
extension IssueStore: FacilityReferenceSource {}

extension PhotoOwnerKind {
    /// An issue's evidence photos (seed 001 §13–14: `photoServerPaths.append(serverPath)`); the upload's
    /// `entity_type` `issue` (CONTRACT.md, Photos).
    public static let issue = PhotoOwnerKind("issue")
}

extension PhotoOwner {
    /// An issue's evidence photo.
    public static func issue(_ localID: String) -> PhotoOwner {
        PhotoOwner(kind: .issue, localID: localID)
    }
}

extension IssueStore {
    /// How the photos feature treats issue photos: they belong to the issue (no field), appended to its
    /// photo paths on upload; the issue's sync status says when their files can go.
    public var photoOwnerRegistration: PhotoOwnerRegistration {
        PhotoOwnerRegistration(
            .issue, fields: .none, listener: IssuePhotoListener(store: self),
            ownerStatus: IssuePhotoOwnerStatus(store: self))
    }
}
