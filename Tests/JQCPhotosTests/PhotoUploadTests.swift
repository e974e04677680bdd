import Foundation
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCSync
import Synchronization
import Testing

private let uploadPath = "/api/v1/photos/upload"

@Suite("Photo upload stage")
struct PhotoUploadTests {
    @Test("an upload sends file, entity_type and captured_at, then settles the photo in the listener's transaction")
    func uploadSettlesThroughListener() async throws {
        let world = try PhotoTestWorld([PhotoTestWorld.uploaded("uploads/inspection_photos/ab12.jpg")])
        let listener = RecordingListener()
        listener.service.withLock { $0 = world.service }
        let issueListener = RecordingListener()
        world.service.register(listener, for: .inspection)
        world.service.register(issueListener, for: .issue)
        let progress = Mutex<[PhotoUploadProgress]>([])
        world.service.setUploadProgressObserver { value in progress.withLock { $0.append(value) } }
        let photo = try world.importPhoto(.inspection("insp-1", field: "12"))

        let report = try await world.service.uploadStage.run(world.pass())

        #expect(report == StageReport(name: "photos", pushed: 1))
        let request = try #require(world.transport.requests(path: uploadPath).first)
        #expect(request.method == .post)
        guard case .multipart(let parts) = request.body else {
            Issue.record("the upload is not multipart")
            return
        }
        #expect(parts.map(\.name) == ["file", "entity_type", "captured_at"])
        #expect(parts[0].contentType == "image/jpeg")
        #expect(parts[0].content == .file(photo.localFile))
        #expect(parts[1].content == .data(Data("inspection".utf8)))
        #expect(parts[2].content == .data(Data(DateFormats.instantString(world.clock.now).utf8)))

        let expected = UploadedPhoto(
            id: photo.id, owner: .inspection("insp-1", field: "12"), serverPath: "uploads/inspection_photos/ab12.jpg",
            serverURL: "http://127.0.0.1:9/static/uploads/inspection_photos/ab12.jpg", localSentinel: photo.sentinel)
        #expect(
            listener.all == [
                RecordingListener.Call(
                    photo: expected, insideTransaction: true, rowStateSeen: .uploaded,
                    rowPathSeen: "uploads/inspection_photos/ab12.jpg")
            ])
        #expect(listener.all.first?.photo.fieldID == "12")
        #expect(issueListener.all == [])
        let stored = try #require(try world.service.photo(id: photo.id))
        #expect(stored.state == .settled)
        #expect(stored.syncStatus == .synced)
        #expect(stored.serverPath == "uploads/inspection_photos/ab12.jpg")
        #expect(try world.service.pendingCount() == 0)
        #expect(progress.withLock { $0 }.last?.photoID == photo.id)
        #expect(progress.withLock { $0 }.last.map { $0.bytesSent == $0.bytesTotal && $0.bytesTotal > 0 } == true)
        #expect(
            try world.database.read { db in
                try world.service.hasUnsettledPhotos(ownerKind: .inspection, ownerLocalID: "insp-1", in: db)
            } == false)
    }

    @Test("a listener that throws rolls back its work; the server path is kept and the next pass only re-notifies")
    func listenerFailureRetriesWithoutReupload() async throws {
        let world = try PhotoTestWorld([PhotoTestWorld.uploaded("uploads/issue_photos/cd34.jpg")])
        let listener = RecordingListener()
        listener.setFailing(true)
        world.service.register(listener, for: .issue)
        let photo = try world.importPhoto(.issue("issue-9"))

        let first = try await world.service.uploadPending(world.pass())
        var expected = StageReport(name: "photos", pushed: 1, deferred: 1)
        expected.deferredReason = "the inspection could not be updated"
        #expect(first == expected)
        var stored = try #require(try world.service.photo(id: photo.id))
        #expect(stored.state == .uploaded)
        #expect(stored.serverPath == "uploads/issue_photos/cd34.jpg")
        #expect(stored.attempts == 1)
        #expect(stored.error == "the inspection could not be updated")
        #expect(try world.service.pendingCount() == 0)
        #expect(
            try world.database.read { db in
                try world.service.hasUnsettledPhotos(ownerKind: .issue, ownerLocalID: "issue-9", in: db)
            })

        listener.setFailing(false)
        let second = try await world.service.uploadPending(world.pass())
        #expect(second == StageReport(name: "photos"))
        stored = try #require(try world.service.photo(id: photo.id))
        #expect(stored.state == .settled)
        #expect(world.transport.requests(path: uploadPath).count == 1)
        #expect(listener.all.count == 2)
        #expect(listener.all.last?.photo.serverPath == "uploads/issue_photos/cd34.jpg")
    }

    @Test("413 and 415 fail the photo at once with the server's sentence", arguments: [413, 415])
    func rejectedFailsAtOnce(status: Int) async throws {
        let world = try PhotoTestWorld([.error(status, "The uploaded file is not an image; send a JPEG photo.")])
        let photo = try world.importPhoto(.issue("issue-1"))
        let report = try await world.service.uploadPending(world.pass())
        #expect(report == StageReport(name: "photos", failed: 1))
        let stored = try #require(try world.service.photo(id: photo.id))
        #expect(stored.syncStatus == .failed)
        #expect(stored.state == .pending)
        #expect(stored.error == "The uploaded file is not an image; send a JPEG photo.")
        #expect(
            try world.service.failedItems() == [
                FailedOutboxItem(
                    kind: "photo", localID: photo.id.uuidString,
                    reason: "The uploaded file is not an image; send a JPEG photo.")
            ])
        #expect(try world.service.pendingCount() == 0)
        #expect(FileManager.default.fileExists(atPath: photo.localFile.path))

        // The inspector's retry puts it back with no counted tries; the next pass uploads it.
        try world.service.retryFailedPhoto(id: photo.id)
        world.transport.enqueue(PhotoTestWorld.uploaded("uploads/issue_photos/ok.jpg"))
        #expect(try await world.service.uploadPending(world.pass()) == StageReport(name: "photos", pushed: 1))
        #expect(try world.service.photo(id: photo.id)?.state == .settled)
    }

    @Test("a 5xx keeps the photo pending with a counted try; the fifth fails it")
    func serverErrorsCountTries() async throws {
        let world = try PhotoTestWorld()
        world.transport.route(.post, path: uploadPath, [.error(500, "Internal failure.")], repeatLast: true)
        let photo = try world.importPhoto(.issue("issue-1"))
        for attempt in 1...4 {
            let report = try await world.service.uploadPending(world.pass())
            var expected = StageReport(name: "photos", deferred: 1)
            expected.deferredReason = "The server had a problem (HTTP 500): Internal failure."
            #expect(report == expected)
            let stored = try #require(try world.service.photo(id: photo.id))
            #expect(stored.attempts == attempt)
            #expect(stored.syncStatus == .pending)
            #expect(stored.lastAttemptAt == world.clock.now)
            #expect(stored.error == "The server had a problem (HTTP 500): Internal failure.")
        }
        #expect(try world.service.pendingCount() == 1)
        #expect(try await world.service.uploadPending(world.pass()) == StageReport(name: "photos", failed: 1))
        let stored = try #require(try world.service.photo(id: photo.id))
        #expect(stored.syncStatus == .failed)
        #expect(stored.error == "The server had a problem (HTTP 500): Internal failure. (gave up after 5 tries)")
        #expect(world.transport.requests(path: uploadPath).count == 5)
    }

    @Test("an automatic pass waits out the backoff after a failed try; an explicit one tries at once")
    func backoff() async throws {
        let world = try PhotoTestWorld()
        world.transport.route(.post, path: uploadPath, [.error(503, "Busy.")], repeatLast: true)
        try world.importPhoto(.issue("issue-1"))
        _ = try await world.service.uploadPending(world.pass(explicit: false))
        let waited = try await world.service.uploadPending(world.pass(explicit: false))
        #expect(waited.deferred == 1 && waited.pushed == 0 && waited.failed == 0)
        #expect(waited.waitingReason?.hasPrefix("waits before its next automatic try (after 1 failed try") == true)
        #expect(world.transport.requests(path: uploadPath).count == 1)
        world.clock.advance(by: 30)
        _ = try await world.service.uploadPending(world.pass(explicit: false))
        #expect(world.transport.requests(path: uploadPath).count == 2)
        _ = try await world.service.uploadPending(world.pass(explicit: true))
        #expect(world.transport.requests(path: uploadPath).count == 3)
    }

    @Test("offline stops the pass and leaves every photo untouched")
    func offlineStopsPass() async throws {
        let world = try PhotoTestWorld([.fail(.offline("connection refused"))])
        let first = try world.importPhoto(.issue("issue-1"), name: "a.jpg")
        let second = try world.importPhoto(.issue("issue-1"), name: "b.jpg")
        await #expect {
            try await world.service.uploadStage.run(world.pass())
        } throws: { error in
            (error as? SyncStopError)?.kind == .offline
        }
        #expect(world.transport.requests(path: uploadPath).count == 1)
        #expect(try world.service.photo(id: first.id) == first)
        #expect(try world.service.photo(id: second.id) == second)
        #expect(try world.service.pendingCount() == 2)
    }

    @Test("a photo whose file vanished is failed with a sentence, never sent")
    func missingFileFails() async throws {
        let world = try PhotoTestWorld()
        let photo = try world.importPhoto(.issue("issue-1"))
        try FileManager.default.removeItem(at: photo.localFile)
        #expect(try await world.service.uploadPending(world.pass()) == StageReport(name: "photos", failed: 1))
        #expect(
            try world.service.failedItems().map(\.reason)
                == ["The photo's file is missing on this device; discard the photo and take it again."])
        #expect(world.transport.requests.isEmpty)
    }

    @Test("the stage is the push stage 'photos', not best-effort; an owner's stage declared after it runs after it")
    func stageShape() throws {
        let world = try PhotoTestWorld()
        let stage = world.service.uploadStage
        #expect(stage.name == "photos")
        #expect(stage.direction == .push)
        #expect(stage.isBestEffort == false)
        let owner = OwnerPushStage()
        #expect(try StageOrder.sorted([owner, stage]).map(\.name) == ["photos", "owner records"])
    }
}

/// A later feature's push stage, registered first, declaring it runs after the photos (rule 12).
private struct OwnerPushStage: SyncStage {
    let name = "owner records"
    let direction = SyncDirection.push
    let constraints: [StageConstraint] = [.after("photos")]
    let isBestEffort = false
    func run(_ pass: SyncPass) async throws -> StageReport { StageReport() }
}

@Suite("Photo owners: deleted drafts and synced records")
struct PhotoOwnerTests {
    @Test("photos of a deleted owner are removed with their files before any upload")
    func missingOwnerRemoved() async throws {
        let world = try PhotoTestWorld([PhotoTestWorld.uploaded("uploads/inspection_photos/kept.jpg")])
        let status = FixedOwnerStatus()
        world.setOwnerStatus(status, for: .inspection)
        let gone = try world.importPhoto(.inspection("deleted-draft", field: "1"), name: "a.jpg")
        let kept = try world.importPhoto(.inspection("live-draft", field: "1"), name: "b.jpg")
        status.set("deleted-draft", .missing)
        #expect(try await world.service.uploadPending(world.pass()) == StageReport(name: "photos", pushed: 1))
        #expect(try world.service.photo(id: gone.id) == nil)
        #expect(!FileManager.default.fileExists(atPath: gone.localFile.path))
        #expect(try world.service.photo(id: kept.id)?.state == .settled)
        #expect(world.transport.requests(path: uploadPath).count == 1)
    }

    @Test("a draft deleted while its photo is uploading is not notified and its photo stays deleted")
    func ownerDeletedDuringUpload() async throws {
        let world = try PhotoTestWorld()
        let listener = RecordingListener()
        world.service.register(listener, for: .inspection)
        let photo = try world.importPhoto(.inspection("draft", field: "2"))
        let service = world.service
        world.transport.enqueue(
            .respond { _ in
                try service.deletePhotos(for: .inspection("draft"))
                let body: JSONValue = [
                    "ok": true, "data": ["path": "uploads/inspection_photos/late.jpg"], "error": nil,
                ]
                return HTTPResponse(status: 200, body: body.jsonData())
            })
        #expect(try await world.service.uploadPending(world.pass()) == StageReport(name: "photos", pushed: 1))
        #expect(listener.all == [])
        #expect(try world.service.photo(id: photo.id) == nil)
        #expect(world.folderContents() == [])
    }

    @Test("files are released only for settled photos of a synced owner; unsettled ones stay")
    func syncedOwnerReleased() async throws {
        let world = try PhotoTestWorld([
            PhotoTestWorld.uploaded("uploads/issue_photos/one.jpg"),
            .error(500, "Down."),
        ])
        let status = FixedOwnerStatus()
        world.setOwnerStatus(status, for: .issue)
        let settled = try world.importPhoto(.issue("issue-1"), name: "a.jpg")
        let unsettled = try world.importPhoto(.issue("issue-1"), name: "b.jpg")
        _ = try await world.service.uploadPending(world.pass())
        #expect(try world.service.photo(id: settled.id)?.state == .settled)
        #expect(try world.service.photo(id: unsettled.id)?.state == .pending)

        status.set("issue-1", .synced)
        world.transport.route(.post, path: uploadPath, [.error(500, "Down.")], repeatLast: true)
        _ = try await world.service.uploadPending(world.pass())
        #expect(try world.service.photo(id: settled.id) == nil)
        #expect(!FileManager.default.fileExists(atPath: settled.localFile.path))
        #expect(try world.service.photo(id: unsettled.id) != nil)
        #expect(FileManager.default.fileExists(atPath: unsettled.localFile.path))
    }

    @Test("releaseFiles(for:) called by an owner's push stage deletes its settled photos and nothing else")
    func releaseFilesDirect() async throws {
        let world = try PhotoTestWorld([PhotoTestWorld.uploaded("uploads/issue_photos/one.jpg")])
        let settled = try world.importPhoto(.issue("issue-1"), name: "a.jpg")
        _ = try await world.service.uploadPending(world.pass())
        let pending = try world.importPhoto(.issue("issue-1"), name: "b.jpg")
        let other = try world.importPhoto(.issue("issue-2"), name: "c.jpg")
        #expect(try world.service.releaseFiles(for: .issue("issue-1")) == 1)
        #expect(world.folderContents() == ["\(pending.id.uuidString).jpg", "\(other.id.uuidString).jpg"].sorted())
        #expect(try world.service.photo(id: settled.id) == nil)
    }

    @Test("files in the photos folder with no row are swept once they are an hour old")
    func orphanSweep() async throws {
        let world = try PhotoTestWorld()
        let orphan = world.photosFolder.appendingPathComponent("\(UUID().uuidString).jpg")
        try Data([0xFF, 0xD8]).write(to: orphan)
        let unrelated = world.photosFolder.appendingPathComponent("notes.txt")
        try Data("x".utf8).write(to: unrelated)
        world.clock.set(Date())
        _ = try await world.service.uploadPending(world.pass())
        #expect(FileManager.default.fileExists(atPath: orphan.path))
        world.clock.set(Date().addingTimeInterval(3_700))
        _ = try await world.service.uploadPending(world.pass())
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
    }
}
