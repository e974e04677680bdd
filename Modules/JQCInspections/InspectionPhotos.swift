import Foundation
import JQCForms
import JQCKit
import JQCPhotos
import JQCStorage
import Synchronization

/// The photo ↔ inspection wiring (seed 001 §17; rules 10, 12): attaching a photo to an image or signature
/// field (the `local://` sentinel written into the answer in the photo's own transaction), and the four hooks
/// the composition root plugs in — the submit gate (rule 12), the upload listener (sentinel → server path),
/// the owner status (missing / unsynced / synced) and the draft-deletion hook (the draft's photos and files).
public final class InspectionPhotos: Sendable {
    private let store: InspectionStore
    private let photos: PhotoService
    private let clock: any Clock
    /// Files of photos deleted with a draft, removed once the deletion has committed.
    private let doomedFiles = Mutex<[String: [URL]]>([:])
    /// Files of photos discarded with their field's answer, removed once that removal has committed.
    private let clearedFieldFiles = Mutex<[String: [URL]]>([:])

    /// The wiring over the inspections store and the photos service.
    /// - Parameters:
    ///   - store: the inspections store (same database as `photos`).
    ///   - photos: the photos feature.
    ///   - clock: `captured_at` when none is given.
    public init(store: InspectionStore, photos: PhotoService, clock: any Clock) {
        self.store = store
        self.photos = photos
        self.clock = clock
    }

    /// Imports a JPEG into an image or signature field of a draft (SHELL.md `photo FIELD_ID FILE`; a
    /// signature is captured as an image, SPEC.md §3). The photo row and the answer — the sentinel
    /// `local://photos/<id>.jpg` — are written in one transaction; the `photos` stage later replaces the
    /// sentinel with the server path. A newer photo for the same field supersedes an unsettled older one.
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - rawFieldID: the field id as given (`9`, `"9"`).
    ///   - file: the JPEG to import (judged by its bytes).
    ///   - capturedAt: when it was taken; the clock's now when `nil`.
    /// - Returns: the pending photo (id, sentinel, width, height).
    /// - Throws: ``InspectionsError`` — `notFound`, `notADraft`, `invalidAnswer` (unknown field, or not an
    ///   image/signature field), `photo` (the file was refused: not a JPEG, damaged, too large), `storage`.
    ///   Nothing is written on any error.
    @discardableResult
    public func attach(localID: String, fieldID rawFieldID: String, file: URL, capturedAt: Date? = nil) throws
        -> PendingPhoto
    {
        let fieldID = FieldID.normalize(.string(rawFieldID)) ?? rawFieldID
        let inspection: Inspection
        do {
            guard let found = try store.inspection(localID: localID) else {
                throw InspectionsError(
                    .notFound, "There is no inspection \(localID) on this device; see 'inspections'.")
            }
            inspection = found
        } catch let error as DatabaseError {
            throw InspectionsError(.storage, "The local store failed: \(error.description)", cause: error)
        }
        guard inspection.status == .draft else {
            throw InspectionsError(
                .notADraft,
                "The inspection \(localID) was already submitted (\(inspection.badge.label)); "
                    + "photos can only be added to a draft.")
        }
        let schema = inspection.schema
        guard let field = schema.field(id: fieldID) else {
            throw InspectionsError(
                .invalidAnswer, "The form has no field \(fieldID); see 'form' for the field ids.")
        }
        guard field.type.isPhoto else {
            throw InspectionsError(
                .invalidAnswer,
                "Field \(field.reference) is a \(field.type.rawValue) field; photos go into image or signature fields.")
        }
        do {
            return try photos.importPhoto(
                from: file, owner: .inspection(localID, field: fieldID), capturedAt: capturedAt ?? clock.now
            ) { db, photo in
                guard let current = try self.store.inspection(db, localID: localID), current.status == .draft else {
                    throw InspectionsError(.notADraft, "The inspection \(localID) is no longer a draft.")
                }
                var answers = FormAnswers(current.formData)
                do {
                    try answers.setPhoto(fieldID: fieldID, path: photo.sentinel, schema: current.schema)
                } catch let error as FormsError {
                    throw InspectionsError(.invalidAnswer, error.message, cause: error)
                }
                try self.store.updateAnswers(db, localID: localID, formData: answers.values, at: self.clock.now)
            }
        } catch let error as PhotoError {
            throw InspectionsError(
                error.kind == .storage ? .storage : .photo,
                error.kind == .refused ? "The photo \(file.path) was refused: \(error.message)" : error.message,
                cause: error)
        }
    }
}

extension InspectionPhotos: InspectionPhotoGate {
    /// `true` while a photo of the inspection is not settled (pending, uploaded but not written into the
    /// answer, or failed: a failed photo holds the inspection until it is retried or discarded). Rule 12.
    /// - Throws: `DatabaseError`.
    public func hasUnsettledPhotos(inspectionLocalID: String, db: Database) throws -> Bool {
        try photos.hasUnsettledPhotos(ownerKind: .inspection, ownerLocalID: inspectionLocalID, in: db)
    }

    /// The photos feature's sentence: which photo failed and the commands that unblock it, or that the photos
    /// are still uploading (``/JQCPhotos/PhotoService/photoWaitReason(ownerKind:ownerLocalID:in:)``).
    /// - Throws: `DatabaseError`.
    public func photoWaitReason(inspectionLocalID: String, db: Database) throws -> String? {
        try photos.photoWaitReason(ownerKind: .inspection, ownerLocalID: inspectionLocalID, in: db)
    }
}

extension InspectionPhotos: PhotoUploadListener {
    /// Replaces the field's `local://` sentinel with the server path (seed 001 §17). Idempotent: when the
    /// answer is already the server path, or holds something else (the inspector replaced or cleared it),
    /// nothing changes.
    /// - Throws: `DatabaseError`.
    public func photoUploaded(_ photo: UploadedPhoto, in db: Database) throws {
        // The one answer read and written (issue 17), not the whole row with its schema.
        guard photo.owner.kind == .inspection, let fieldID = photo.fieldID else { return }
        try store.replaceAnswer(
            db, localID: photo.owner.localID, fieldID: fieldID, ifStill: .string(photo.localSentinel),
            with: .string(photo.serverPath), at: clock.now)
    }
}

extension InspectionPhotos: PhotoOwnerStatusProvider {
    /// `missing` when the inspection is gone (a deleted draft), `synced` once the server has it, else
    /// `unsynced`.
    /// - Throws: `DatabaseError`.
    public func ownerState(localID: String, in db: Database) throws -> PhotoOwnerState {
        guard let inspection = try store.syncState(db, localID: localID) else { return .missing }
        return inspection.syncStatus == .synced ? .synced : .unsynced
    }
}

extension InspectionPhotos: InspectionDraftDeletionHook {
    /// Deletes the draft's photo rows in the deletion transaction (seed 001 §11.3).
    /// - Throws: `DatabaseError`.
    public func draftDeleting(localID: String, db: Database) throws {
        let files = try photos.deletePhotos(for: .inspection(localID), in: db)
        doomedFiles.withLock { $0[localID] = files }
    }

    /// Removes the deleted photos' files after the deletion committed.
    public func draftDeleted(localID: String) {
        let files = doomedFiles.withLock { $0.removeValue(forKey: localID) } ?? []
        photos.removeFiles(files)
    }
}

extension InspectionPhotos: InspectionPhotoFieldClearingHook {
    /// Deletes the field's photo rows (pending, uploaded or failed) in the transaction that removes the
    /// field's answer (issue 18), so no photo uploads for an answer that is gone.
    /// - Throws: `DatabaseError`.
    public func photoFieldClearing(localID: String, fieldID: String, db: Database) throws {
        let files = try photos.deletePhotos(for: .inspection(localID, field: fieldID), in: db)
        clearedFieldFiles.withLock { $0[Self.key(localID, fieldID)] = files }
    }

    /// Removes the discarded photos' files after the answer's removal committed.
    public func photoFieldCleared(localID: String, fieldID: String) {
        let files = clearedFieldFiles.withLock { $0.removeValue(forKey: Self.key(localID, fieldID)) } ?? []
        photos.removeFiles(files)
    }

    private static func key(_ localID: String, _ fieldID: String) -> String { localID + "\u{1F}" + fieldID }
}

extension PhotoOwnerKind {
    /// An inspection's image or signature field (seed 001 §17: `formData[fieldId] = serverPath`); the
    /// upload's `entity_type` `inspection` (CONTRACT.md, Photos).
    public static let inspection = PhotoOwnerKind("inspection")
}

extension PhotoOwner {
    /// A photo for an inspection's image or signature field `fieldID`, or (with `nil`) every photo of it.
    public static func inspection(_ localID: String, field fieldID: String? = nil) -> PhotoOwner {
        PhotoOwner(kind: .inspection, localID: localID, fieldID: fieldID)
    }
}

extension InspectionPhotos {
    /// How the photos feature treats inspection photos: each answers one field (a new one supersedes the
    /// field's unsettled ones), this wiring is the upload listener and the owner status.
    public var photoOwnerRegistration: PhotoOwnerRegistration {
        PhotoOwnerRegistration(.inspection, fields: .required, listener: self, ownerStatus: self)
    }
}
