import Foundation
import JQCStorage

/// Called inside the submit transaction, after the inspection is written as completed + pending
/// (SPEC.md §2 hooks): Scheduling fulfils a schedule locally, FollowUps clears a request. Throwing rolls
/// the whole submit back.
public protocol InspectionSubmitHook: Sendable {
    /// The inspection was submitted.
    /// - Parameters:
    ///   - inspection: the stored inspection (status completed, sync pending).
    ///   - db: the open submit transaction.
    /// - Throws: any error, which undoes the submit.
    func inspectionSubmitted(_ inspection: Inspection, db: Database) throws
}

/// Whether an inspection still has photos not yet settled (rule 12: an inspection is submitted only when
/// all its photos are uploaded or failed). JQCPhotos plugs its implementation in.
public protocol InspectionPhotoGate: Sendable {
    /// - Returns: `true` while any of the inspection's photos is still pending upload.
    /// - Throws: the store's error.
    func hasUnsettledPhotos(inspectionLocalID: String, db: Database) throws -> Bool
    /// Why the inspection's push waits for its photos (the sentence its outbox item records), or `nil` when
    /// none is unsettled. Default: "waits for its photos to upload" while ``hasUnsettledPhotos(inspectionLocalID:db:)``.
    /// - Throws: the store's error.
    func photoWaitReason(inspectionLocalID: String, db: Database) throws -> String?
}

extension InspectionPhotoGate {
    /// "waits for its photos to upload" while any photo is unsettled, else `nil`.
    public func photoWaitReason(inspectionLocalID: String, db: Database) throws -> String? {
        try hasUnsettledPhotos(inspectionLocalID: inspectionLocalID, db: db) ? "waits for its photos to upload" : nil
    }
}

/// The gate when no photos feature is registered: an inspection never waits.
public struct NoPhotosGate: InspectionPhotoGate {
    /// The gate.
    public init() {}
    public func hasUnsettledPhotos(inspectionLocalID: String, db: Database) throws -> Bool { false }
}

/// Called inside the draft-deletion transaction (seed 001 §11.3): Photos deletes the draft's pending photos
/// (and their files after commit), Issues its issues.
public protocol InspectionDraftDeletionHook: Sendable {
    /// The draft is being deleted.
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - db: the open deletion transaction.
    /// - Throws: any error, which keeps the draft.
    func draftDeleting(localID: String, db: Database) throws

    /// The deletion committed: remove what lives outside the store (photo files). Not called when the
    /// deletion rolled back.
    /// - Parameter localID: the deleted draft's local id.
    func draftDeleted(localID: String)
}

extension InspectionDraftDeletionHook {
    /// Nothing to do after the commit (the default).
    public func draftDeleted(localID: String) {}
}

/// Called inside the answer transaction when an image or signature field's answer is removed (`photo FIELD
/// --clear`, `answer FIELD ""`; issue 18): Photos discards the field's photos in that transaction, so the
/// answer and its pending photo go together, and their files once it has committed.
public protocol InspectionPhotoFieldClearingHook: Sendable {
    /// The field's answer is being removed.
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - fieldID: the image or signature field's id.
    ///   - db: the open answer transaction.
    /// - Throws: any error, which keeps the answer.
    func photoFieldClearing(localID: String, fieldID: String, db: Database) throws

    /// The removal committed: remove what lives outside the store (photo files). Not called when it rolled
    /// back.
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - fieldID: the cleared field's id.
    func photoFieldCleared(localID: String, fieldID: String)
}
