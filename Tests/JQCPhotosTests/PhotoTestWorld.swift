import Foundation
import JQCJPEG
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCPhotos
import JQCStorage
import JQCSync
import JQCTestSupport
import Synchronization

/// A temporary store migrated for photos, a scripted transport, a signed-in API client and a service.
final class PhotoTestWorld: @unchecked Sendable {  // because: immutable after init; its parts are thread-safe.
    let temp = TemporaryDirectory(prefix: "jqc-photos")
    let transport: ScriptedTransport
    let clock = ManualClock()
    let database: DatabaseQueue
    let service: PhotoService
    let config = ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9"))

    init(_ steps: [ScriptedTransport.Step] = []) throws {
        transport = ScriptedTransport(steps)
        database = try DatabaseQueue(path: temp.path("jqc.sqlite").path)
        var migrator = DatabaseMigrator()
        PhotosSchema.register(in: &migrator)
        try migrator.migrate(database)
        let user = User(id: 1, username: "alex", role: .inspector)
        let api = APIClient(
            config: config, transport: transport,
            tokens: InMemoryTokenStore(
                Credentials(
                    accessToken: "access", refreshToken: "refresh",
                    user: user)),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "0.0.1"),
            clock: clock)
        service = try PhotoService(database: database, directory: temp.path("photos"), api: api, clock: clock)
        service.registerOwnerKind(PhotoOwnerRegistration(.inspection, fields: .required))
        service.registerOwnerKind(PhotoOwnerRegistration(.issue, fields: .none))
    }

    /// Registers `kind` again with `status` as its owner status provider (the field rule kept).
    func setOwnerStatus(_ status: any PhotoOwnerStatusProvider, for kind: PhotoOwnerKind) {
        service.registerOwnerKind(
            PhotoOwnerRegistration(kind, fields: kind == .inspection ? .required : .none, ownerStatus: status))
    }

    var photosFolder: URL { temp.path("photos") }

    /// File names in the photos folder, sorted.
    func folderContents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: photosFolder.path)) ?? []).sorted()
    }

    /// An explicit pass with exact (jitter-free) backoff.
    func pass(explicit: Bool = true) -> SyncPass {
        SyncPass(isExplicit: explicit, clock: clock, classify: SyncFailure.classify, jitter: { 1 })
    }

    /// Writes a generated JPEG (`width` × `height`, quality 95) into the temp folder and returns its URL.
    func makeJPEG(_ name: String = "input.jpg", width: Int = 48, height: Int = 32) throws -> URL {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                pixels[offset] = UInt8(x * 255 / max(1, width - 1))
                pixels[offset + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[offset + 2] = 128
            }
        }
        let image = try PixelImage(width: width, height: height, channels: 3, pixels: pixels)
        let url = temp.path(name)
        try JPEGCodec.encode(image, quality: 95).write(to: url)
        return url
    }

    /// Imports a generated photo for `owner`.
    @discardableResult
    func importPhoto(_ owner: PhotoOwner, name: String = "input.jpg") throws -> PendingPhoto {
        try service.importPhoto(from: try makeJPEG(name), owner: owner, capturedAt: clock.now)
    }

    /// An upload reply for `path`.
    static func uploaded(_ path: String) -> ScriptedTransport.Step {
        .ok(["path": .string(path), "url": .string("http://127.0.0.1:9/static/" + path)])
    }
}

/// A listener that records what it was told, and whether it ran inside a transaction that already holds the
/// server path; it throws while `failing` is set.
final class RecordingListener: PhotoUploadListener {
    struct Call: Sendable, Equatable {
        var photo: UploadedPhoto
        var insideTransaction: Bool
        var rowStateSeen: PhotoUploadState?
        var rowPathSeen: String?
    }

    private let calls = Mutex<[Call]>([])
    private let failing = Mutex(false)
    let service: Mutex<PhotoService?> = Mutex(nil)

    var all: [Call] { calls.withLock { $0 } }
    func setFailing(_ value: Bool) { failing.withLock { $0 = value } }

    func photoUploaded(_ photo: UploadedPhoto, in db: Database) throws {
        let row = try service.withLock { $0 }?.photos(for: photo.owner, in: db).first { $0.id == photo.id }
        calls.withLock {
            $0.append(
                Call(
                    photo: photo, insideTransaction: db.isInsideTransaction, rowStateSeen: row?.state,
                    rowPathSeen: row?.serverPath))
        }
        if failing.withLock({ $0 }) { throw ListenerFailure() }
    }
}

struct ListenerFailure: Error, CustomStringConvertible {
    var description: String { "the inspection could not be updated" }
}

/// An owner status provider answering from a table in memory.
final class FixedOwnerStatus: PhotoOwnerStatusProvider {
    private let states = Mutex<[String: PhotoOwnerState]>([:])
    func set(_ localID: String, _ state: PhotoOwnerState) { states.withLock { $0[localID] = state } }
    func ownerState(localID: String, in db: Database) throws -> PhotoOwnerState {
        states.withLock { $0[localID] ?? .unsynced }
    }
}

/// The owner kinds these tests use, declared here as their owning features (JQCInspections, JQCIssues)
/// declare them: the photos feature itself names none.
extension PhotoOwnerKind {
    static let inspection = PhotoOwnerKind("inspection")
    static let issue = PhotoOwnerKind("issue")
}

extension PhotoOwner {
    static func inspection(_ localID: String, field fieldID: String? = nil) -> PhotoOwner {
        PhotoOwner(kind: .inspection, localID: localID, fieldID: fieldID)
    }

    static func issue(_ localID: String) -> PhotoOwner { PhotoOwner(kind: .issue, localID: localID) }
}
