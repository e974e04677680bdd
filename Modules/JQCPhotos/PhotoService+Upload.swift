import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync

// MARK: - Upload (the photos stage)

extension PhotoService {
    /// One pass of the photos stage: (1) removes photos of deleted owners and releases files of synced
    /// owners, sweeping orphan files; (2) re-notifies owners of photos uploaded earlier whose listener
    /// failed; (3) uploads every pending photo (multipart `file`, `entity_type`, `captured_at`; CONTRACT.md)
    /// and, in the transaction that marks it synced, calls the owner kind's listener.
    ///
    /// The outbox rules are JQCSync's ``/JQCSync/OutboxDriver`` (FEATURES.md): offline stops the pass (photo
    /// untouched); 5xx/429/local errors keep it pending and count a try (5 tries fail it); timeouts keep it
    /// pending uncounted; other 4xx (413, 415) fail it at once with the server's sentence. A photo whose file
    /// is gone fails with a sentence. Never deletes a photo because of an error.
    /// - Returns: `pushed` = photos uploaded, `failed`, `deferred`.
    /// - Throws: ``/JQCSync/SyncStopError`` to stop the pass; `DatabaseError` when the store fails.
    public func uploadPending(_ pass: SyncPass) async throws -> StageReport {
        var report = try await OutboxDriver.push(PhotoOutboxFeed(service: self), pass: pass).report
        report.name = PhotoUploadStage.stageName
        return report
    }

    /// Uploads one photo's file.
    /// - Returns: the server's path and display URL.
    /// - Throws: `APIError`; `undecodable` when the reply's path is empty.
    fileprivate func upload(_ photo: PendingPhoto) async throws -> PhotoUploadReply {
        let parts: [MultipartPart] = [
            .file("file", url: photo.localFile, filename: photo.localFile.lastPathComponent, contentType: "image/jpeg"),
            .field("entity_type", photo.entityType),
            .field("captured_at", DateFormats.instantString(photo.capturedAt)),
        ]
        let id = photo.id
        var onProgress: (@Sendable (Int64, Int64) -> Void)?
        if let progress = hooks.withLock({ $0.progress }) {
            onProgress = { sent, total in
                progress(PhotoUploadProgress(photoID: id, bytesSent: sent, bytesTotal: total))
            }
        }
        let reply = try await api.upload(
            path: "/api/v1/photos/upload", parts: parts, as: PhotoUploadReply.self, progress: onProgress)
        guard !reply.path.isEmpty else {
            throw APIError.undecodable("the upload reply has an empty path")
        }
        return reply
    }

    /// Stores the server path and tells the owner kind's listener, in the caller's transaction (the one that
    /// marks the photo synced). Re-reads first: the owner may have been deleted during the upload (its
    /// photos with it), or another process may have settled this photo already; the listener runs at most
    /// once per settle.
    /// - Throws: the listener's error (the transaction rolls back; the photo stays `uploaded`, its path kept).
    fileprivate func settle(_ photo: PendingPhoto, reply: PhotoUploadReply, in db: Database) throws {
        guard let current = try photoStore.photo(id: photo.id, in: db), current.state != .settled else {
            logger.info(
                "photo \(photo.id) uploaded as \(reply.path) but was deleted or settled meanwhile; owner not notified")
            return
        }
        // Usually written already, in this transaction (the feed's keepAnswer) or by an earlier pass: a second
        // identical UPDATE of the row is skipped (issue 17).
        if current.state != .uploaded || current.serverPath != reply.path || current.serverURL != reply.url {
            try photoStore.markUploaded(photo.id, path: reply.path, url: reply.url, in: db)
        }
        let uploaded = UploadedPhoto(
            id: photo.id, owner: photo.owner, serverPath: reply.path, serverURL: reply.url,
            localSentinel: photo.sentinel)
        for listener in listeners(of: photo.owner.kind) { try listener.photoUploaded(uploaded, in: db) }
        try photoStore.markSettled(photo.id, in: db)
        logger.info("photo \(photo.id) uploaded as \(reply.path) for \(photo.owner)")
    }
}

/// What `POST /api/v1/photos/upload` answers (CONTRACT.md): the stored path and its display URL.
struct PhotoUploadReply: Decodable, Sendable {
    var path: String
    var url: String?
}

/// The photos' outbox as JQCSync's push driver sees it: photos uploaded earlier whose owner was not told
/// yet (their listener is retried; never uploaded twice), then the pending ones, oldest first.
struct PhotoOutboxFeed: OutboxFeed {
    let service: PhotoService

    var database: DatabaseQueue { service.database }
    var table: OutboxTable { PhotoStore.outbox }

    /// Housekeeping: photos of missing owners removed, files of synced owners released, orphans swept.
    func prepare(_ pass: SyncPass) throws { try service.housekeeping() }

    func pendingItems() throws -> [PendingPhoto] {
        try database.read { db in
            try service.photoStore.outbox(state: .uploaded, in: db) + service.photoStore.outbox(state: .pending, in: db)
        }
    }

    /// A pending photo whose file is gone can never be sent.
    func readiness(of photo: PendingPhoto) throws -> OutboxReadiness {
        guard photo.state == .pending, !FileManager.default.fileExists(atPath: photo.localFile.path) else {
            return .ready
        }
        return .failed("The photo's file is missing on this device; discard the photo and take it again.")
    }

    /// Uploads a pending photo; a photo already uploaded is not sent again (its kept path is the answer).
    func send(_ photo: PendingPhoto, pass: SyncPass) async throws -> PhotoUploadReply {
        if photo.state == .uploaded, let path = photo.serverPath {
            return PhotoUploadReply(path: path, url: photo.serverURL)
        }
        return try await service.upload(photo)
    }

    /// Keeps the server's path (state `uploaded`) ahead of the record in the same transaction, so the photo
    /// is never uploaded twice even when telling its owner fails (the record, which writes the path again
    /// before telling the owner, then rolls back alone). A kill before that transaction commits leaves the
    /// photo pending, uploaded again by the next pass (as a kill between any reply and its commit can).
    func keepAnswer(_ photo: PendingPhoto, answer: PhotoUploadReply, pass: SyncPass, in db: Database) throws {
        guard photo.state == .pending else { return }
        try service.photoStore.markUploaded(photo.id, path: answer.path, url: answer.url, in: db)
    }

    /// Only an upload made in this pass counts as pushed (re-telling an owner does not).
    func countsAsPushed(_ photo: PendingPhoto) -> Bool { photo.state == .pending }

    func recordSent(_ photo: PendingPhoto, answer: PhotoUploadReply, pass: SyncPass, in db: Database) throws {
        try service.settle(photo, reply: answer, in: db)
    }
}

/// The `photos` push stage (seed 001 §8, rule 12: before inspections). Not best-effort: an inspection must
/// not be submitted while its photos are stuck, and the stages after it check that themselves.
public struct PhotoUploadStage: SyncStage {
    /// `photos`.
    public static let stageName = "photos"
    /// The service doing the work.
    public let service: PhotoService
    /// `photos`.
    public var name: String { Self.stageName }
    /// Push.
    public var direction: SyncDirection { .push }
    /// `false`.
    public var isBestEffort: Bool { false }

    /// A stage over `service`.
    public init(service: PhotoService) { self.service = service }

    /// Runs ``PhotoService/uploadPending(_:)``.
    /// - Throws: ``/JQCSync/SyncStopError`` or the store's error.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        try await service.uploadPending(pass)
    }
}
