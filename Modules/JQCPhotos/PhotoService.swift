import Foundation
import JQCJPEG
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync
import Synchronization

/// Bytes sent so far for one photo upload (SPEC.md §5: long work shows progress).
public struct PhotoUploadProgress: Sendable, Equatable {
    /// The photo being uploaded.
    public var photoID: UUID
    /// Bytes sent so far.
    public var bytesSent: Int64
    /// Bytes to send in all (the whole multipart body), or 0 when unknown.
    public var bytesTotal: Int64

    /// A progress value.
    public init(photoID: UUID, bytesSent: Int64, bytesTotal: Int64) {
        self.photoID = photoID
        self.bytesSent = bytesSent
        self.bytesTotal = bytesTotal
    }
}

/// The photos feature (seed 001 §13, §14, §17; issue 8): imports photos into `<data-dir>/photos`, keeps
/// their outbox rows (`pending_photos`), uploads them in the `photos` stage, tells the owners through
/// ``PhotoUploadListener``s, and removes files once the owner no longer needs them.
///
/// Who calls what:
/// - each owning feature, once: ``registerOwnerKind(_:)`` (its kind, field rule, listener, status provider);
/// - the shell's `photo`/`flag`/`issue new` (through JQCInspections/JQCIssues):
///   ``importPhoto(from:owner:capturedAt:updatingOwner:)``,
///   which returns the photo whose ``PendingPhoto/sentinel`` goes into the form answer;
/// - JQCInspections: ``hasUnsettledPhotos(ownerKind:ownerLocalID:in:)`` before submitting (rule 12),
///   ``deletePhotos(for:in:)`` when a draft is deleted, ``releaseFiles(for:)`` after a successful push;
/// - JQCIssues: the same, with ``photos(for:)`` for the local photo section (rule 34);
/// - the composition root (through the photos feature's module value): ``uploadStage`` and the service
///   its `photos` outbox kind.
public final class PhotoService: Sendable {
    /// The photos folder, `<data-dir>/photos` (0700).
    public let directory: URL
    /// The SQL of this feature, resolving files against ``directory``.
    public let photoStore: PhotoStore
    let database: DatabaseQueue
    let api: APIClient
    private let importer: PhotoImporter
    let clock: any Clock
    let logger: Logger
    let hooks = Mutex(Hooks())
    /// Files older than this (seconds) with no row are removed by the stage's sweep.
    static let orphanAge: Double = 3_600

    struct Hooks {
        var owners: [PhotoOwnerKind: PhotoOwnerRegistration] = [:]
        var extraListeners: [(PhotoOwnerKind, any PhotoUploadListener)] = []
        var progress: (@Sendable (PhotoUploadProgress) -> Void)?
    }

    /// The service over a migrated store (``PhotosSchema`` registered). Creates `directory` (0700).
    /// - Parameters:
    ///   - database: the app's store.
    ///   - directory: `<data-dir>/photos`, passed by the composition root (never derived from server data).
    ///   - api: the API client used for uploads.
    ///   - importer: the JPEG pipeline (quality 80, rule 18).
    ///   - clock: the clock for `last_attempt_at`, `created_at` and the orphan sweep.
    ///   - logger: the feature's logger.
    /// - Throws: ``PhotoError`` `.fileSystem` when the folder cannot be created.
    public init(
        database: DatabaseQueue, directory: URL, api: APIClient, importer: PhotoImporter = PhotoImporter(),
        clock: any Clock, logger: Logger = .disabled
    ) throws {
        self.database = database
        self.directory = directory
        self.photoStore = PhotoStore(directory: directory)
        self.api = api
        self.importer = importer
        self.clock = clock
        self.logger = logger
        try Self.ensureDirectory(directory)
    }

    // MARK: - Hooks

    /// Registers an owner kind with its rules, listener and status provider (replacing an earlier
    /// registration of that kind). Called by the owning feature when it is installed (JQCInspections for
    /// `inspection`, JQCIssues for `issue`); a photo of an unregistered kind is refused.
    public func registerOwnerKind(_ registration: PhotoOwnerRegistration) {
        hooks.withLock { $0.owners[registration.kind] = registration }
    }

    /// Adds a listener told about every uploaded photo of `kind` after the kind's own (e.g. a test's
    /// observer), inside the upload's transaction.
    public func register(_ listener: any PhotoUploadListener, for kind: PhotoOwnerKind) {
        hooks.withLock { $0.extraListeners.append((kind, listener)) }
    }

    /// The listeners of `kind`, in the order they are told: the kind's own, then the added ones.
    func listeners(of kind: PhotoOwnerKind) -> [any PhotoUploadListener] {
        hooks.withLock { hooks in
            [hooks.owners[kind]?.listener].compactMap { $0 } + hooks.extraListeners.filter { $0.0 == kind }.map(\.1)
        }
    }

    /// The registered owner kinds, sorted by name.
    public var ownerKinds: [PhotoOwnerKind] {
        hooks.withLock { $0.owners.keys.sorted { $0.rawValue < $1.rawValue } }
    }

    /// Sets (or clears, with `nil`) the observer of upload progress; called on a transport thread.
    public func setUploadProgressObserver(_ observer: (@Sendable (PhotoUploadProgress) -> Void)?) {
        hooks.withLock { $0.progress = observer }
    }

    /// The `photos` push stage (the stages that send photos' owners declare they run after it: rule 12).
    public var uploadStage: PhotoUploadStage { PhotoUploadStage(service: self) }

    // MARK: - Import

    /// Imports a photo: runs JQCJPEG's pipeline (EXIF orientation applied once, reduced to a 4,096 px long
    /// edge, quality 80 — rule 18) into `<data-dir>/photos/<id>.jpg` (0600), then records the pending row
    /// — and, when given, runs `updatingOwner` — in one transaction.
    /// For a kind whose photos answer fields, the new photo supersedes the field's unsettled photos (an image
    /// or signature field holds one answer): their rows go in the same transaction and their files after it.
    /// - Parameters:
    ///   - file: the photo to import (judged by its bytes, not its name).
    ///   - owner: a record of a registered kind (and its field, for a kind whose photos answer fields).
    ///   - capturedAt: when it was taken (sent as `captured_at`).
    ///   - updatingOwner: work for the owner in the same transaction (e.g. writing ``PendingPhoto/sentinel``
    ///     into the form answer); when it throws nothing is kept and its error is rethrown.
    /// - Returns: the pending photo; its ``PendingPhoto/sentinel`` (`local://photos/<id>.jpg`) is the form
    ///   answer until upload (seed 001 §17).
    /// - Throws: ``PhotoError`` `.refused` (with the pipeline's sentence; nothing written), `.invalidOwner`,
    ///   `.fileSystem`, `.storage`; or `updatingOwner`'s error. No file or row is left behind on any error.
    @discardableResult
    public func importPhoto(
        from file: URL, owner: PhotoOwner, capturedAt: Date,
        updatingOwner: ((Database, PendingPhoto) throws -> Void)? = nil
    ) throws -> PendingPhoto {
        let registration = try validate(owner)
        try Self.ensureDirectory(directory)
        let id = UUID()
        let output = PhotoStore.fileURL(for: id, in: directory)
        let result: JPEGImportResult
        do {
            result = try importer.recompress(input: file, output: output)
        } catch {
            throw PhotoError(.refused, error.message, cause: error)
        }
        chmod(output.path, 0o600)
        let photo = PendingPhoto(
            id: id, owner: owner, localFile: output, entityType: registration.entityType, capturedAt: capturedAt,
            createdAt: clock.now, state: .pending, serverPath: nil, serverURL: nil, outbox: OutboxState(),
            width: result.width, height: result.height, bytes: result.outputBytes)
        let superseded: [URL]
        do {
            superseded = try database.write { db in
                // An image or signature field holds one answer: a new photo supersedes the field's
                // unsettled ones (a superseded photo must not block the inspection's submit).
                let earlier =
                    registration.fields == .required
                    ? try photoStore.photos(for: owner, in: db).filter(\.isUnsettled) : []
                try photoStore.delete(earlier.map(\.id), in: db)
                try photoStore.insert(photo, in: db)
                try updatingOwner?(db, photo)
                return earlier.map(\.localFile)
            }
        } catch let failure as DatabaseError {
            try? FileManager.default.removeItem(at: output)
            throw PhotoError(
                .storage, "The photo could not be recorded: \(failure.description)",
                cause: failure)
        } catch {
            try? FileManager.default.removeItem(at: output)
            throw error
        }
        removeFiles(superseded)
        logger.info("imported photo \(id) for \(owner): \(result.width)x\(result.height), \(result.outputBytes) bytes")
        return photo
    }

    // MARK: - Queries for other features

    /// Whether the record has a photo that is not settled (pending, uploaded but owner not yet updated, or
    /// failed). JQCInspections submits an inspection only when this is `false` (SPEC.md §4; rule 12).
    /// - Throws: `DatabaseError`.
    public func hasUnsettledPhotos(ownerKind: PhotoOwnerKind, ownerLocalID: String, in db: Database) throws -> Bool {
        try photoStore.hasUnsettled(kind: ownerKind, localID: ownerLocalID, in: db)
    }

    /// Why an owner's push waits for its photos, as the sentence its outbox item records (issue 18), or `nil`
    /// when every photo of the record is settled (rule 12). A failed photo holds its owner until the inspector
    /// acts, so its sentence names the photo, the failure and the two commands that unblock it —
    /// "waits for its photo <id>, which failed: <reason> — 'photo retry <id>' or 'photo discard <id>'" — and
    /// never promises a retry; otherwise "waits for its photos to upload" (the photos stage sends them).
    /// - Throws: `DatabaseError`.
    public func photoWaitReason(ownerKind: PhotoOwnerKind, ownerLocalID: String, in db: Database) throws -> String? {
        // Most owners have nothing unsettled: one COUNT on the owner index answers that, without reading and
        // decoding every photo row (issue 17: ~26,000 instructions per pushed inspection before).
        guard try photoStore.hasUnsettled(kind: ownerKind, localID: ownerLocalID, in: db) else { return nil }
        let unsettled = try photoStore.photos(for: PhotoOwner(kind: ownerKind, localID: ownerLocalID), in: db)
            .filter(\.isUnsettled)
        guard !unsettled.isEmpty else { return nil }
        if let failed = unsettled.first(where: { $0.syncStatus == .failed }) {
            let id = failed.id.uuidString
            let reason = failed.error ?? "the photo could not be uploaded"
            return "waits for its photo \(id), which failed: \(reason) — 'photo retry \(id)' or 'photo discard \(id)'"
        }
        return "waits for its photos to upload"
    }

    /// Every photo of `owner` (every field when `owner.fieldID` is `nil`), oldest first, as values.
    /// - Throws: `DatabaseError`.
    public func photos(for owner: PhotoOwner) throws -> [PendingPhoto] {
        try database.read { db in try photoStore.photos(for: owner, in: db) }
    }

    /// Every photo of `owner`, inside the caller's transaction.
    /// - Throws: `DatabaseError`.
    public func photos(for owner: PhotoOwner, in db: Database) throws -> [PendingPhoto] {
        try photoStore.photos(for: owner, in: db)
    }

    /// One photo by id, or `nil`.
    /// - Throws: `DatabaseError`.
    public func photo(id: UUID) throws -> PendingPhoto? {
        try database.read { db in try photoStore.photo(id: id, in: db) }
    }

    /// Deletes the rows of `owner`'s photos inside the caller's transaction (a draft deleted, a field
    /// cleared) and returns their files. Remove the files with ``removeFiles(_:)`` after the transaction
    /// commits; files left behind (a crash in between) are swept by the photos stage after an hour.
    /// - Returns: the local files of the deleted photos.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func deletePhotos(for owner: PhotoOwner, in db: Database) throws -> [URL] {
        let photos = try photoStore.photos(for: owner, in: db)
        try photoStore.delete(photos.map(\.id), in: db)
        return photos.map(\.localFile)
    }

    /// Deletes `owner`'s photos and their files (own transaction; files removed after it commits).
    /// - Returns: how many photos were deleted.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func deletePhotos(for owner: PhotoOwner) throws -> Int {
        let files = try database.write { db in try deletePhotos(for: owner, in: db) }
        removeFiles(files)
        return files.count
    }

    /// Removes files returned by ``deletePhotos(for:in:)``; only files inside ``directory`` are touched.
    public func removeFiles(_ files: [URL]) {
        let root = directory.standardizedFileURL.path
        for file in files where file.standardizedFileURL.deletingLastPathComponent().path == root {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// Releases the local files of `owner`'s settled photos once the owner has synced (seed 001 §17, rule 43:
    /// the server's copies are what a synced record shows). Called by the owner's push stage after success;
    /// the photos stage does the same for owners whose ``PhotoOwnerStatusProvider`` says `synced`.
    /// Unsettled and failed photos are kept.
    /// - Returns: how many photos were released.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func releaseFiles(for owner: PhotoOwner) throws -> Int {
        // Most owners have no settled photo left (an issue flagged without one): a read finds that without
        // taking the write lock (issue 17: after every pushed issue).
        let any = try database.read { db in
            try photoStore.photos(for: owner.record, in: db).contains { $0.state == .settled }
        }
        guard any else { return 0 }
        let files = try database.write { db in
            let settled = try photoStore.photos(for: owner.record, in: db).filter { $0.state == .settled }
            try photoStore.delete(settled.map(\.id), in: db)
            return settled.map(\.localFile)
        }
        removeFiles(files)
        return files.count
    }

    /// Puts a failed photo back in the outbox with its tries reset (the inspector's retry).
    /// - Throws: ``PhotoError`` `.notFound` when no failed photo has that id; `DatabaseError`.
    public func retryFailedPhoto(id: UUID) throws {
        guard try database.write({ db in try photoStore.resetFailed(id, at: clock.now, in: db) }) else {
            throw PhotoError(.notFound, "No failed photo has the id \(id.uuidString); check `status` for failed items.")
        }
    }

    /// Discards a photo (the inspector's choice for a failed one): its row and file are deleted.
    /// - Throws: ``PhotoError`` `.notFound`; `DatabaseError`.
    public func discardPhoto(id: UUID) throws {
        let file = try database.write { db -> URL? in
            guard let photo = try photoStore.photo(id: id, in: db) else { return nil }
            try photoStore.delete([id], in: db)
            return photo.localFile
        }
        guard let file else {
            throw PhotoError(.notFound, "No photo has the id \(id.uuidString); check `status` for failed items.")
        }
        removeFiles([file])
    }

    // MARK: - The outbox kind `photos`

    /// Photos not uploaded yet and not failed (SHELL.md `status`, kind `photos`).
    /// - Throws: `DatabaseError`.
    public func pendingCount() throws -> Int {
        try database.read { db in try photoStore.pendingUploadCount(in: db) }
    }

    /// Failed photos as `{kind: "photo", local_id: <uuid>, reason}`, oldest first.
    /// - Throws: `DatabaseError`.
    public func failedItems() throws -> [FailedOutboxItem] {
        try database.read { db in try photoStore.failed(in: db) }.map {
            FailedOutboxItem(
                kind: "photo", localID: $0.id.uuidString,
                reason: $0.error ?? "The photo could not be uploaded.")
        }
    }

    /// Removes photos of missing owners, releases files of synced owners, sweeps orphan files.
    func housekeeping() throws {
        let providers = hooks.withLock { $0.owners.compactMapValues(\.ownerStatus) }
        let files = try database.write { db -> [URL] in
            var files: [URL] = []
            for owner in try photoStore.owners(in: db) {
                guard let provider = providers[owner.kind] else { continue }
                // An unsynced owner keeps every photo: its rows are not read (issue 17).
                let doomed: [PendingPhoto]
                switch try provider.ownerState(localID: owner.localID, in: db) {
                case .missing: doomed = try photoStore.photos(for: owner, in: db)
                case .synced: doomed = try photoStore.photos(for: owner, in: db).filter { $0.state == .settled }
                case .unsynced: continue
                }
                try photoStore.delete(doomed.map(\.id), in: db)
                files += doomed.map(\.localFile)
            }
            return files
        }
        removeFiles(files)
        try sweepOrphans()
    }

    /// Removes photo files no row refers to once they are older than any import in progress could be
    /// (``orphanAge``): `<id>.jpg` whose row is gone or was never written (a kill between the file's rename
    /// and the row's commit), and the atomic write's `<id>.jpg.tmp-<pid>-<n>` (a kill during the write; no row
    /// ever refers to one). Runs in the photos stage's housekeeping, so inside a pass, which holds the data
    /// directory's pass lock (``/JQCSync/SyncPassLock``). A file a row refers to is never removed.
    private func sweepOrphans() throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let candidates = names.compactMap { name -> (name: String, id: String, isPartial: Bool)? in
            if name.hasSuffix(".jpg"), UUID(uuidString: String(name.dropLast(4))) != nil {
                return (name, String(name.dropLast(4)), false)
            }
            if let range = name.range(of: ".jpg.tmp-"), UUID(uuidString: String(name[..<range.lowerBound])) != nil {
                return (name, String(name[..<range.lowerBound]), true)
            }
            return nil
        }
        guard !candidates.isEmpty else { return }
        let known = try database.read { db in try photoStore.allIDs(in: db) }
        let now = clock.now
        for (name, _, _) in candidates.filter({ $0.isPartial || !known.contains($0.id) }) {
            let file = directory.appendingPathComponent(name)
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
            guard let modified = attributes?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > Self.orphanAge
            else { continue }
            try? FileManager.default.removeItem(at: file)
            logger.info("removed orphan photo file \(name)")
        }
    }

    /// The owner kind's registration, when `owner` fits it.
    private func validate(_ owner: PhotoOwner) throws -> PhotoOwnerRegistration {
        guard !owner.localID.isEmpty else {
            throw PhotoError(.invalidOwner, "A photo needs the local id of the \(owner.kind.rawValue) it belongs to.")
        }
        guard let registration = hooks.withLock({ $0.owners[owner.kind] }) else {
            throw PhotoError(
                .invalidOwner, "No installed feature takes photos of a \(owner.kind.rawValue); nothing was imported.")
        }
        switch registration.fields {
        case .required where (owner.fieldID ?? "").isEmpty:
            throw PhotoError(
                .invalidOwner,
                "A photo of a \(owner.kind.rawValue) needs the id of the image or signature field it answers.")
        case .none where owner.fieldID != nil:
            throw PhotoError(
                .invalidOwner,
                "A photo of a \(owner.kind.rawValue) belongs to the \(owner.kind.rawValue), not to a form field; "
                    + "omit the field id.")
        default:
            return registration
        }
    }

    private static func ensureDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw PhotoError(
                .fileSystem,
                "The photos folder \(directory.path) could not be created: \(error.localizedDescription)",
                cause: error)
        }
    }
}
