import Foundation
import JQCComposition
import JQCInspections
import JQCIssues
import JQCJPEG
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync
import Synchronization
import Testing

/// Records the server paths the photos stage hands to owners.
private final class PathListener: PhotoUploadListener {
    private let paths = Mutex<[String: String]>([:])
    var byPhoto: [String: String] { paths.withLock { $0 } }
    func photoUploaded(_ photo: UploadedPhoto, in db: Database) throws {
        paths.withLock { $0[photo.id.uuidString] = photo.serverPath }
    }
}

/// Writes a generated `width` × `height` JPEG into `directory` and returns it.
private func makeJPEG(in directory: URL, name: String, width: Int, height: Int, seed: UInt8) throws -> URL {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for index in pixels.indices { pixels[index] = UInt8(truncatingIfNeeded: index &* 31 &+ Int(seed) &* 7) }
    let url = directory.appendingPathComponent(name)
    try JPEGCodec.encode(try PixelImage(width: width, height: height, channels: 3, pixels: pixels), quality: 95)
        .write(to: url)
    return url
}

/// A draft of template 3 and an issue flagged on it: real owners that stay unsynced (the issue waits for its
/// draft, rule 11), so the photos stage keeps their photos and files.
private func unsyncedOwners(_ world: TestApp) throws -> (inspection: String, issue: String) {
    let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11))
    let issue = try world.app.issues.flag(inspectionLocalID: draft.localID, severity: "low", description: "evidence")
    return (draft.localID, issue.localID)
}

@Suite("Photos against the dev server")
struct PhotosIntegrationTests {
    @Test("three photos upload; the server stores them and serves the same bytes under /static/")
    func uploadThree() async throws {
        let world = try TestApp()
        try await world.ready()
        let owned = try unsyncedOwners(world)
        let listener = PathListener()
        world.app.photos.register(listener, for: .issue)
        world.app.photos.register(listener, for: .inspection)
        let progress = Mutex<[PhotoUploadProgress]>([])
        world.app.photos.setUploadProgressObserver { value in progress.withLock { $0.append(value) } }
        let owners: [PhotoOwner] = [
            .issue(owned.issue), .issue(owned.issue), .inspection(owned.inspection, field: "9"),
        ]
        var photos: [PendingPhoto] = []
        for (index, owner) in owners.enumerated() {
            let input = try makeJPEG(
                in: world.clientDirectory.url, name: "in\(index).jpg", width: 120 + index * 8,
                height: 90, seed: UInt8(index))
            photos.append(try world.app.photos.importPhoto(from: input, owner: owner, capturedAt: Date()))
        }
        #expect(try world.app.outboxStatus().pending["photos"] == 3)
        #expect(world.app.photos.directory.path == world.clientDirectory.url.appendingPathComponent("photos").path)
        let folder = try FileManager.default.attributesOfItem(atPath: world.app.photos.directory.path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: world.app.photos.directory.path))
                == Set(photos.map { "\($0.id.uuidString).jpg" }))

        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stoppedBy == nil)
        #expect(report.stages.first { $0.name == "photos" }?.pushed == 3)
        #expect(try world.app.outboxStatus().pending["photos"] == 0)

        let serverPhotos = Set(try world.adminState()["photos"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        for photo in photos {
            let stored = try #require(try world.app.photos.photo(id: photo.id))
            #expect(stored.state == .settled)
            let path = try #require(stored.serverPath)
            #expect(path.hasPrefix("uploads/\(photo.entityType)_photos/"))
            #expect(serverPhotos.contains(path))
            #expect(listener.byPhoto[photo.id.uuidString] == path)
            let url = try #require(
                PhotoURLResolver.displayURL(
                    serverURL: stored.serverURL, path: path,
                    config: world.app.server))
            let fallback = try #require(
                PhotoURLResolver.displayURL(
                    serverURL: nil, path: path,
                    config: world.app.server))
            #expect(url == fallback)
            let response = try await world.app.transport.send(HTTPRequest(method: .get, url: fallback), progress: nil)
            #expect(response.status == 200)
            #expect(response.body == (try Data(contentsOf: stored.localFile)))
        }
        let seen = progress.withLock { $0 }
        #expect(Set(seen.map(\.photoID)) == Set(photos.map(\.id)))
        #expect(seen.contains { $0.bytesSent == $0.bytesTotal && $0.bytesTotal > 0 })
    }

    @Test("a 500 from the upload keeps the photo pending with one try; the next sync uploads it")
    func serverErrorThenSuccess() async throws {
        let world = try TestApp()
        try await world.ready()
        let input = try makeJPEG(in: world.clientDirectory.url, name: "in.jpg", width: 64, height: 64, seed: 9)
        let photo = try world.app.photos.importPhoto(
            from: input, owner: .issue(try unsyncedOwners(world).issue),
            capturedAt: Date())
        try world.fault(["path_prefix": "/api/v1/photos/upload", "mode": "status", "status": 500])

        let first = try await world.app.sync.sync(explicit: true)
        #expect(first.stages.first { $0.name == "photos" }?.deferred == 1)
        var stored = try #require(try world.app.photos.photo(id: photo.id))
        #expect(stored.state == .pending)
        #expect(stored.syncStatus == .pending)
        #expect(stored.attempts == 1)
        #expect(stored.error?.hasPrefix("The server had a problem (HTTP 500)") == true)
        #expect(try world.adminState()["photos"]?.arrayValue?.isEmpty == true)

        let second = try await world.app.sync.sync(explicit: true)
        #expect(second.stages.first { $0.name == "photos" }?.pushed == 1)
        stored = try #require(try world.app.photos.photo(id: photo.id))
        #expect(stored.state == .settled)
        #expect(try world.adminState()["photos"]?.arrayValue?.compactMap(\.stringValue) == [stored.serverPath ?? ""])
    }

    @Test("a file the server refuses (415) fails at once and shows in status with the server's sentence")
    func refusedFile() async throws {
        let world = try TestApp()
        try await world.ready()
        let input = try makeJPEG(in: world.clientDirectory.url, name: "in.jpg", width: 32, height: 32, seed: 1)
        let photo = try world.app.photos.importPhoto(
            from: input, owner: .issue(try unsyncedOwners(world).issue),
            capturedAt: Date())
        try Data("not an image at all".utf8).write(to: photo.localFile)
        _ = try await world.app.sync.sync(explicit: true)
        let status = try world.app.outboxStatus()
        #expect(
            status.failed == [
                FailedOutboxItem(
                    kind: "photo", localID: photo.id.uuidString,
                    reason: "The uploaded file is not an image; send a JPEG photo.")
            ])
        #expect(status.pending["photos"] == 0)
    }
}
