import Foundation
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync
import Testing

private let uploadPath = "/api/v1/photos/upload"

/// The photos stage keeps each server path ahead of the photo's record, in the record's one transaction,
/// committed while the next upload is out (issue 17).
@Suite("Photo upload: the server path is kept ahead of the record, in its transaction (issue 17)")
struct PhotoUploadPipelineTests {
    @Test("photos uploaded one after another are each settled with their own path, their owner told once each")
    func eachSettledWithItsPath() async throws {
        let world = try PhotoTestWorld([
            PhotoTestWorld.uploaded("uploads/inspection_photos/p1.jpg"),
            PhotoTestWorld.uploaded("uploads/inspection_photos/p2.jpg"),
            PhotoTestWorld.uploaded("uploads/inspection_photos/p3.jpg"),
        ])
        let listener = RecordingListener()
        listener.service.withLock { $0 = world.service }
        world.service.register(listener, for: .inspection)
        let photos = try (1...3).map { index in
            try world.importPhoto(.inspection("insp-\(index)", field: "9"), name: "\(index).jpg")
        }

        #expect(try await world.service.uploadPending(world.pass()) == StageReport(name: "photos", pushed: 3))
        let paths = (1...3).map { "uploads/inspection_photos/p\($0).jpg" }
        #expect(listener.all.map(\.photo.id) == photos.map(\.id))
        #expect(listener.all.map(\.photo.serverPath) == paths)
        #expect(listener.all.map(\.rowPathSeen) == paths)
        #expect(listener.all.allSatisfy { $0.rowStateSeen == .uploaded && $0.insideTransaction })
        let stored = try photos.map { try #require(try world.service.photo(id: $0.id)) }
        #expect(stored.map(\.state) == [.settled, .settled, .settled])
        #expect(stored.map(\.serverPath) == paths)
        #expect(stored.allSatisfy { $0.syncStatus == .synced })
    }

    @Test("neither the path nor the record committed after the upload (a kill): uploaded again, its owner told once")
    func lostCommitsUploadAgainOnce() async throws {
        let world = try PhotoTestWorld([
            PhotoTestWorld.uploaded("uploads/issue_photos/first.jpg"),
            PhotoTestWorld.uploaded("uploads/issue_photos/second.jpg"),
        ])
        let listener = RecordingListener()
        world.service.register(listener, for: .issue)
        let photo = try world.importPhoto(.issue("issue-1"))
        // The store refuses every write of a server path: what a kill before those commits leaves behind.
        try RefusedWritesStore.refuseUpdates(of: "server_path", on: "pending_photos", in: world.database)

        let first = try await world.service.uploadPending(world.pass())
        #expect(first.pushed == 1 && first.deferred == 1 && first.failed == 0)
        var stored = try #require(try world.service.photo(id: photo.id))
        #expect(stored.state == .pending)
        #expect(stored.serverPath == nil)
        #expect(stored.syncStatus == .pending)
        #expect(stored.attempts == 1)
        #expect(listener.all.isEmpty)

        try RefusedWritesStore.allowUpdates(of: "server_path", on: "pending_photos", in: world.database)
        #expect(try await world.service.uploadPending(world.pass()) == StageReport(name: "photos", pushed: 1))
        stored = try #require(try world.service.photo(id: photo.id))
        #expect(stored.state == .settled)
        #expect(stored.serverPath == "uploads/issue_photos/second.jpg")
        #expect(world.transport.requests(path: uploadPath).count == 2)
        #expect(listener.all.map(\.photo.serverPath) == ["uploads/issue_photos/second.jpg"])
    }
}
