import Foundation
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync

extension PhotoOwnerKind {
    /// A toy's photo (declared here, by its owner, as every owner kind is).
    public static let toy = PhotoOwnerKind("toy")
}

/// A test-support feature: toys, each with one photo, sent as `POST /api/v1/toys {local_id, name,
/// photo_path}` once the photo is uploaded. It exists to show (and test) that a synced feature with a photo
/// needs nothing outside its own module but its registrations: the contract (``FeatureModule``), the generic
/// outbox (JQCStorage's ``OutboxTable``, JQCSync's ``OutboxDriver``) and the photos' extension point.
public struct ToyFeature: FeatureModule {
    /// `toys`.
    public let name = "toys"
    /// The `toys` table.
    public let store: ToyStore
    /// Create, retry, discard.
    public let service: ToyService
    private let photos: PhotosFeature
    private let api: APIClient

    /// The feature over the core, on the photos it attaches.
    public init(core: FeatureCore, photos: PhotosFeature) {
        store = ToyStore(queue: core.database)
        service = ToyService(store: store, photos: photos.service, clock: core.clock)
        self.photos = photos
        api = core.api
    }

    /// Contributes the `toys` migrations, the photo owner kind `toy`, the `toys` stage (after `photos`),
    /// the outbox kind `toys` and the cleaner.
    public func install(into app: inout FeatureInstallation) {
        app.registerMigrations(ToyStore.register(in:))
        photos.service.registerOwnerKind(
            PhotoOwnerRegistration(
                .toy, fields: .none, listener: ToyPhotoListener(store: store), ownerStatus: ToyPhotoStatus(store: store)
            ))
        app.addStage(
            OutboxPushStage(
                "toys", feed: ToyOutboxFeed(store: store, photos: photos.service, api: api),
                constraints: [.after("photos")]))
        let store = self.store
        app.addOutboxKind(
            OutboxKind(
                "toys", pendingCount: { try store.pendingCount() },
                failedItems: { try store.failed().map { FailedOutboxItem(kind: "toy", localID: $0, reason: $1) } }))
        let photos = self.photos.service
        app.addServerPulledDataCleaner {
            for localID in try store.deleteServerKnown() {
                try photos.deletePhotos(for: PhotoOwner(kind: .toy, localID: localID))
            }
        }
    }
}

/// The toys' actions: all local, at once.
public struct ToyService: Sendable {
    let store: ToyStore
    let photos: PhotoService
    let clock: any Clock

    /// A new pending toy with its photo, written in the photo's import transaction.
    /// - Returns: the toy.
    /// - Throws: ``PhotoError`` when the photo is refused (nothing is kept); `DatabaseError`.
    public func create(name: String, photo file: URL) throws -> Toy {
        let toy = Toy(
            localID: UUID().uuidString.lowercased(), name: name, serverID: nil, photoServerPath: nil,
            outbox: OutboxState())
        let now = clock.now
        try photos.importPhoto(from: file, owner: PhotoOwner(kind: .toy, localID: toy.localID), capturedAt: now) {
            db, _ in try store.insert(db, toy, at: now)
        }
        return toy
    }

    /// Puts a failed toy back in the outbox.
    /// - Returns: whether a failed toy was found.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func retry(localID: String) throws -> Bool {
        try store.queue.write { db in try ToyStore.outbox.retry(db, OutboxKey(localID), at: clock.now) }
    }

    /// Deletes a failed toy with its photo.
    /// - Returns: whether a failed toy was deleted.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func discard(localID: String) throws -> Bool {
        let (deleted, files) = try store.queue.write { db -> (Bool, [URL]) in
            guard try ToyStore.outbox.discard(db, OutboxKey(localID)) else { return (false, []) }
            return (true, try photos.deletePhotos(for: PhotoOwner(kind: .toy, localID: localID), in: db))
        }
        photos.removeFiles(files)
        return deleted
    }
}

/// The toys' outbox for the push driver: ready once the photo is settled; sent as one POST.
struct ToyOutboxFeed: OutboxFeed {
    let store: ToyStore
    let photos: PhotoService
    let api: APIClient

    var database: DatabaseQueue { store.queue }
    var table: OutboxTable { ToyStore.outbox }

    func pendingItems() throws -> [Toy] { try store.pending() }

    func readiness(of toy: Toy) throws -> OutboxReadiness {
        let waiting = try store.queue.read { db in
            try photos.hasUnsettledPhotos(ownerKind: .toy, ownerLocalID: toy.localID, in: db)
        }
        return waiting ? .waiting("waits for its photo to upload") : .ready
    }

    func send(_ toy: Toy, pass: SyncPass) async throws -> JSONValue {
        let current = try store.toy(localID: toy.localID) ?? toy  // the photos stage set the path meanwhile
        return try await api.sendJSON(
            .post, path: "/api/v1/toys",
            body: [
                "local_id": .string(current.localID), "name": .string(current.name),
                "photo_path": current.photoServerPath.map(JSONValue.string) ?? .null,
            ], idempotent: true)
    }

    func recordSent(_ toy: Toy, answer: JSONValue, pass: SyncPass, in db: Database) throws {
        try store.recordServerID(db, localID: toy.localID, serverID: answer["id"]?.intValue.map { Int($0) })
    }

    func sentCommitted(_ toy: Toy, answer: JSONValue) throws {
        try photos.releaseFiles(for: PhotoOwner(kind: .toy, localID: toy.localID))
    }
}

/// The uploaded photo's path onto the toy.
struct ToyPhotoListener: PhotoUploadListener {
    let store: ToyStore
    func photoUploaded(_ photo: UploadedPhoto, in db: Database) throws {
        try store.setPhotoPath(db, localID: photo.owner.localID, path: photo.serverPath)
    }
}

/// Where a toy stands for the photos stage.
struct ToyPhotoStatus: PhotoOwnerStatusProvider {
    let store: ToyStore
    func ownerState(localID: String, in db: Database) throws -> PhotoOwnerState {
        guard let toy = try store.toy(db, localID: localID) else { return .missing }
        return toy.outbox.status == .synced ? .synced : .unsynced
    }
}
