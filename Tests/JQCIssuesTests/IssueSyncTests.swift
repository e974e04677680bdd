import Foundation
import JQCInspections
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync
import Synchronization
import Testing

@testable import JQCIssues

/// Upload replies with distinct paths, in order: `uploads/<entity>_photos/p1.jpg`, `p2`, …
func scriptUploads(_ world: IssueTestWorld) {
    let counter = Mutex(0)
    world.transport.route(
        .post, path: "/api/v1/photos/upload",
        [
            .respond { request in
                let n = counter.withLock { value -> Int in
                    value += 1
                    return value
                }
                var entity = "issue"
                if case .multipart(let parts) = request.body,
                    parts.contains(where: { part in
                        if part.name == "entity_type", case .data(let data) = part.content {
                            return String(decoding: data, as: UTF8.self) == "inspection"
                        }
                        return false
                    })
                {
                    entity = "inspection"
                }
                let data: JSONValue = ["path": .string("uploads/\(entity)_photos/p\(n).jpg"), "url": nil]
                let envelope: JSONValue = ["ok": true, "data": data, "error": nil]
                return HTTPResponse(status: 200, headers: [:], body: envelope.jsonData())
            }
        ], repeatLast: true)
}

@Suite("Issue queue (seed 001 §8 step 3, §13, §14, §17)")
struct IssueQueueTests {
    @Test(
        "stage order, whatever the registration order: photos, inspections, issues, queued edits, assigned issues"
    )
    func stageOrder() throws {
        let world = try IssueTestWorld()
        let sorted = try StageOrder.sorted(world.registered.reversed())
        #expect(sorted.map(\.name) == ["photos", "inspections", "issues", "issue edits", "assigned issues"])
        #expect(sorted.map(\.direction) == [.push, .push, .push, .push, .pull])
    }

    @Test(
        "rule 11: an issue waits for a draft parent, fails with a failed one, and is sent after it with inspection_id"
    )
    func parentGuard() async throws {
        let world = try IssueTestWorld()
        world.transport.route(.get, path: "/api/v1/issues", [.ok([])])
        let draft = try world.draft()
        let issue = try world.issues.flag(inspectionLocalID: draft.localID, severity: "HIGH", description: " Leak ")
        #expect(issue.inspectionLocalID == draft.localID)
        #expect(issue.areaID == 111)  // rule 51
        #expect(issue.severity == .high)
        #expect(issue.description == "Leak")

        // Draft parent: nothing is sent.
        var report = try await IssuePushStage(service: world.issues).run(world.pass())
        #expect(report.deferred == 1)
        #expect(world.transport.requests(path: "/api/v1/issues").isEmpty)
        #expect(
            try world.issues.issue(id: issue.localID).outbox.deferredReason
                == "waits for inspection \(draft.localID) to be submitted — 'open \(draft.localID)', then 'submit'")

        // Parent submitted but refused: the issue is failed with a sentence naming the inspection.
        _ = try world.inspections.submit(localID: draft.localID)
        world.transport.route(.post, path: "/api/v1/inspections", [.error(422, "The facility is closed.")])
        let reports = try await world.runStages()
        #expect(reports["inspections"]?.failed == 1)
        #expect(reports["issues"]?.failed == 1)
        let failed = try world.issues.issue(id: issue.localID)
        #expect(failed.syncStatus == .failed)
        #expect(
            failed.syncError == "Its inspection \(draft.localID) failed to sync (The facility is closed.); "
                + "'inspection retry \(draft.localID)', then 'issue retry \(issue.localID)' — or 'issue discard \(issue.localID)'."
        )
        #expect(!world.transport.requests(path: "/api/v1/issues").contains { $0.method == .post })
        #expect(
            try world.issues.failedItems() == [
                FailedOutboxItem(
                    kind: "issue", localID: issue.localID,
                    reason: try #require(failed.syncError))
            ])

        // Retry both: the inspection lands first, then the issue with inspection_id = its server id.
        try world.inspections.retry(localID: draft.localID)
        _ = try world.issues.retry(id: issue.localID)
        world.transport.route(.post, path: "/api/v1/inspections", [.ok(["id": 900])])
        world.transport.route(.post, path: "/api/v1/issues", [.ok(IssueTestWorld.serverIssue(3001), status: 201)])
        world.transport.route(.get, path: "/api/v1/issues", [.ok([IssueTestWorld.serverIssue(3001)])])
        report = try await IssuePushStage(service: world.issues).run(world.pass())
        #expect(report.pushed == 0)  // the inspection has not been sent yet in this pass
        _ = try await world.runStages()
        let posted = try #require(world.transport.requests(path: "/api/v1/issues").first { $0.method == .post })
        #expect(
            IssueTestWorld.body(posted) == [
                "local_id": .string(issue.localID), "inspection_id": 900, "facility_id": 11, "area_id": 111,
                "severity": "high", "description": "Leak",
            ])
        let synced = try world.issues.issue(id: "3001")
        #expect(synced.syncStatus == .synced)
        #expect(synced.inspectionLocalID == draft.localID)
        #expect(synced.inspectionServerID == 900)
    }

    @Test(
        "rule 43: photos first, POST photo_path = the first, PATCH the other two, then local paths cleared"
    )
    func multiPhotoSequence() async throws {
        let world = try IssueTestWorld()
        let files = try (1...3).map { try world.jpeg("in\($0).jpg") }
        let issue = try world.issues.createStandalone(
            contractID: 2, facilityID: 21, areaID: 211, severity: "medium", description: "Dryer", photoFiles: files)
        #expect(issue.inspectionLocalID == "")  // rule 44
        #expect(issue.photoLocalPaths.count == 3)
        #expect(try world.issues.pendingCount() == 1)
        scriptUploads(world)
        world.transport.route(.post, path: "/api/v1/issues", [.ok(IssueTestWorld.serverIssue(3002), status: 201)])
        world.transport.route(.patch, path: "/api/v1/issues/3002/photos", [.ok(IssueTestWorld.serverIssue(3002))])
        world.transport.route(
            .get, path: "/api/v1/issues",
            [
                .ok([
                    IssueTestWorld.serverIssue(
                        3002, localID: issue.localID, photoPath: "uploads/issue_photos/p1.jpg",
                        mobile: ["uploads/issue_photos/p2.jpg", "uploads/issue_photos/p3.jpg"])
                ])
            ])
        let reports = try await world.runStages()
        #expect(reports["photos"]?.pushed == 3)
        #expect(reports["issues"]?.pushed == 1)
        let paths = world.transport.requests.map { "\($0.method.rawValue) \($0.url.path)" }
        #expect(
            paths == [
                "POST /api/v1/photos/upload", "POST /api/v1/photos/upload", "POST /api/v1/photos/upload",
                "POST /api/v1/issues", "PATCH /api/v1/issues/3002/photos", "GET /api/v1/issues",
            ])
        let post = IssueTestWorld.body(world.transport.requests[3])
        #expect(post?["photo_path"] == "uploads/issue_photos/p1.jpg")
        #expect(post?["inspection_id"] == nil)
        #expect(
            IssueTestWorld.body(world.transport.requests[4])
                == ["result_photos": ["uploads/issue_photos/p2.jpg", "uploads/issue_photos/p3.jpg"]])
        let synced = try world.issues.issue(id: "3002")
        #expect(synced.syncStatus == .synced)
        #expect(synced.photoLocalPaths == [])
        #expect(
            synced.photoServerPaths == [
                "uploads/issue_photos/p1.jpg", "uploads/issue_photos/p2.jpg", "uploads/issue_photos/p3.jpg",
            ])
        #expect(try world.issues.localPhotos(of: synced).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: world.photos.directory.path).isEmpty)
        #expect(world.issues.displaySection(of: synced) == .server)  // rule 34
    }

    @Test("a refused photo creates nothing; more than five photos are refused with a sentence")
    func refusedPhotos() throws {
        let world = try IssueTestWorld()
        let good = try world.jpeg("good.jpg")
        let text = world.temp.path("note.txt")
        try Data("not a photo".utf8).write(to: text)
        #expect(throws: IssuesError.self) {
            try world.issues.createStandalone(
                facilityID: 21, severity: "low", description: "x", photoFiles: [good, text])
        }
        #expect(try world.issues.list(includeResolved: true).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: world.photos.directory.path).isEmpty)
        let six = Array(repeating: good, count: 6)
        do {
            _ = try world.issues.createStandalone(facilityID: 21, severity: "low", description: "x", photoFiles: six)
            Issue.record("six photos were accepted")
        } catch let error as IssuesError {
            #expect(error.message == "A standalone issue takes up to 5 photos; 6 were given.")
        }
        do {
            _ = try world.issues.createStandalone(contractID: 1, facilityID: 21, severity: "low", description: "x")
            Issue.record("a facility of another contract was accepted")
        } catch let error as IssuesError {
            #expect(error.kind == .unknownFacility)
            #expect(
                error.message == "The facility 21 is not one of your active facilities in contract 1; "
                    + "pick one of: 11 Main Courthouse.")
        }
        #expect(throws: IssuesError.self) {
            try world.issues.createStandalone(facilityID: 21, severity: "urgent", description: "x")
        }
    }

    @Test("a 5xx keeps the issue pending with one counted try; a 422 fails it with the server's sentence")
    func errorPolicy() async throws {
        let world = try IssueTestWorld()
        let issue = try world.issues.createStandalone(facilityID: 21, severity: "low", description: "x")
        world.transport.route(.post, path: "/api/v1/issues", [.error(500, "boom"), .error(422, "No such area.")])
        _ = try await IssuePushStage(service: world.issues).run(world.pass())
        var stored = try world.issues.issue(id: issue.localID)
        #expect(stored.syncStatus == .pending)
        #expect(stored.syncAttempts == 1)
        _ = try await IssuePushStage(service: world.issues).run(world.pass())
        stored = try world.issues.issue(id: issue.localID)
        #expect(stored.syncStatus == .failed)
        #expect(stored.syncError == "No such area.")
        try world.issues.discard(id: issue.localID)
        #expect(try world.issues.list(includeResolved: true).isEmpty)
    }

    @Test("deleting a draft deletes its unsynced issues, their photo rows and files")
    func draftDeletion() throws {
        let world = try IssueTestWorld()
        let draft = try world.draft()
        let issue = try world.issues.flag(
            inspectionLocalID: draft.localID, severity: "low", description: "x", photoFiles: [try world.jpeg("a.jpg")])
        try world.inspectionPhotos.attach(localID: draft.localID, fieldID: "4", file: try world.jpeg("b.jpg"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: world.photos.directory.path).count == 2)
        try world.inspections.deleteDraft(localID: draft.localID)
        #expect(throws: IssuesError.self) { try world.issues.issue(id: issue.localID) }
        #expect(try world.photos.photos(for: .issue(issue.localID)).isEmpty)
        #expect(try world.photos.photos(for: .inspection(draft.localID)).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: world.photos.directory.path).isEmpty)
    }
    @Test("an issue left half-built by a crash during its photo imports is removed after ten minutes, photos too")
    func abandonedAssembly() async throws {
        let world = try IssueTestWorld()
        let issue = try world.issues.createStandalone(facilityID: 21, severity: "low", description: "x")
        try world.queue.write { db in
            try world.store.delete(db, localID: issue.localID)
            try world.store.insert(db, issue, assembling: true)
        }
        try world.photos.importPhoto(
            from: try world.jpeg("a.jpg"), owner: .issue(issue.localID),
            capturedAt: world.clock.now)
        #expect(try world.issues.list(includeResolved: true).isEmpty)  // not listed while assembling
        #expect(try world.issues.pendingCount() == 0)
        world.clock.advance(by: 300)
        _ = try await IssuePushStage(service: world.issues).run(world.pass())
        #expect(try world.queue.read { db in try world.store.issue(db, localID: issue.localID) } != nil)
        world.clock.advance(by: 301)
        _ = try await IssuePushStage(service: world.issues).run(world.pass())
        #expect(try world.queue.read { db in try world.store.issue(db, localID: issue.localID) } == nil)
        #expect(try world.photos.photos(for: .issue(issue.localID)).isEmpty)
        #expect(world.transport.requests.isEmpty)
    }

    @Test("an unsynced issue keeps its facility for the reference prune (seed 001 §8.4); a synced one does not")
    func facilityReferences() throws {
        let world = try IssueTestWorld()
        let issue = try world.issues.createStandalone(facilityID: 21, severity: "low", description: "x")
        #expect(try world.queue.read { db in try world.store.facilityIDsReferencedByUnsyncedWork(db: db) } == [21])
        try world.store.markCreated(localID: issue.localID, serverID: 5, inspectionServerID: nil, at: world.clock.now)
        try world.store.markSynced(localID: issue.localID, at: world.clock.now)
        #expect(try world.queue.read { db in try world.store.facilityIDsReferencedByUnsyncedWork(db: db) }.isEmpty)
    }
}

@Suite("Assigned issues pull and server-pulled data (rules 30, 31, 33, 42, 48)")
struct AssignedIssuesTests {
    @Test(
        "rule 33: evidence is photo_path + mobile_photo_paths, never result_photos; every field is kept"
    )
    func evidence() async throws {
        let world = try IssueTestWorld()
        world.transport.route(
            .get, path: "/api/v1/issues",
            [
                .ok([
                    IssueTestWorld.serverIssue(
                        48, photoPath: "uploads/issue_photos/a.jpg",
                        mobile: ["uploads/issue_photos/b.jpg"],
                        results: ["uploads/issue_photos/fixed.jpg"])
                ])
            ])
        let result = try await world.issues.pullAssigned(now: world.clock.now)
        #expect(result.upserted == 1)
        let issue = try world.issues.issue(id: "48")
        #expect(issue.photoServerPaths == ["uploads/issue_photos/a.jpg", "uploads/issue_photos/b.jpg"])
        #expect(issue.resultPhotos == ["uploads/issue_photos/fixed.jpg"])
        #expect(issue.inspectionLocalID == "")
        #expect(issue.syncStatus == .synced)
        #expect(issue.resultNotes == "Fixed")
        #expect(issue.reportedByName == "Dana Okafor")
        #expect(issue.assignedToName == "Alex Rivera")
        #expect(issue.handlerType == .vendor)
        #expect(issue.handlerLabel == "Vendor: Dryer Pros")
        #expect(issue.vendorContact == "555-0142")
        #expect(issue.areaName == "Lobby")
        #expect(world.issues.displaySection(of: issue) == .server)
    }

    @Test("rules 30 and 31: an empty reply still runs the deletion pass and removes only server-pulled issues")
    func emptyReplyDeletes() async throws {
        let world = try IssueTestWorld()
        // A device-created standalone issue (unsynced), a flagged issue already synced, two pulled issues.
        let standalone = try world.issues.createStandalone(facilityID: 21, severity: "low", description: "mine")
        let draft = try world.draft()
        let flagged = try world.issues.flag(inspectionLocalID: draft.localID, severity: "low", description: "flagged")
        try world.store.markCreated(
            localID: flagged.localID, serverID: 77, inspectionServerID: nil,
            at: world.clock.now)
        try world.store.markSynced(localID: flagged.localID, at: world.clock.now)
        world.transport.route(
            .get, path: "/api/v1/issues",
            [
                .ok([IssueTestWorld.serverIssue(48), IssueTestWorld.serverIssue(49)]), .ok([]),
            ])
        try await world.issues.pullAssigned(now: world.clock.now)
        #expect(Set(try world.issues.list(includeResolved: true).compactMap(\.serverID)) == [48, 49, 77])
        let result = try await world.issues.pullAssigned(now: world.clock.now)
        #expect(result.upserted == 0)
        #expect(result.deleted.count == 2)
        let left = try world.issues.list(includeResolved: true)
        #expect(Set(left.map(\.localID)) == [standalone.localID, flagged.localID])
    }

    @Test("rule 48: the list hides resolved issues unless asked for all")
    func resolvedHidden() async throws {
        let world = try IssueTestWorld()
        world.transport.route(
            .get, path: "/api/v1/issues",
            [
                .ok([IssueTestWorld.serverIssue(48), IssueTestWorld.serverIssue(50, status: "resolved")])
            ])
        try await world.issues.pullAssigned(now: world.clock.now)
        #expect(try world.issues.list().compactMap(\.serverID) == [48])
        #expect(Set(try world.issues.list(includeResolved: true).compactMap(\.serverID)) == [48, 50])
    }

    @Test(
        "rule 42: clearing deletes every issue with a server id and keeps the unsynced ones"
    )
    func clearBoundary() async throws {
        let world = try IssueTestWorld()
        let pending = try world.issues.createStandalone(facilityID: 21, severity: "low", description: "pending")
        let draft = try world.draft()
        let flagged = try world.issues.flag(inspectionLocalID: draft.localID, severity: "low", description: "synced")
        try world.store.markCreated(
            localID: flagged.localID, serverID: 77, inspectionServerID: nil,
            at: world.clock.now)
        try world.store.markSynced(localID: flagged.localID, at: world.clock.now)
        world.transport.route(.get, path: "/api/v1/issues", [.ok([IssueTestWorld.serverIssue(48)])])
        try await world.issues.pullAssigned(now: world.clock.now)
        try world.issues.clearServerPulledData()
        #expect(try world.issues.list(includeResolved: true).map(\.localID) == [pending.localID])
    }

    @Test(
        "queued edits change the issue at once, survive a refresh, then PATCH with snake_case keys"
    )
    func queuedEdits() async throws {
        let world = try IssueTestWorld()
        world.transport.route(.get, path: "/api/v1/issues", [.ok([IssueTestWorld.serverIssue(49)])], repeatLast: true)
        try await world.issues.pullAssigned(now: world.clock.now)
        var issue = try world.issues.updateStatus(id: "49", status: "in-progress")
        #expect(issue.status == .inProgress)
        issue = try world.issues.updateHandler(
            id: "49", IssueHandlerUpdate(type: .facility, name: "Maintenance", contact: "ext 4410"))
        #expect(issue.handlerLabel == "Facility: Maintenance")
        #expect(issue.vendorName == nil)
        // A refresh while the edits are queued never overwrites them.
        try await world.issues.pullAssigned(now: world.clock.now)
        issue = try world.issues.issue(id: "49")
        #expect(issue.status == .inProgress)
        #expect(issue.handlerType == .facility)
        #expect(try world.store.queuedEdits().count == 2)

        var after = try #require(IssueTestWorld.serverIssue(49, status: "in_progress").objectValue)
        world.transport.route(.patch, path: "/api/v1/issues/49/status", [.ok(.object(after))])
        after["handler_type"] = "facility"
        after["handler_label"] = "Facility: Maintenance"
        after["facility_handler_name"] = "Maintenance"
        after["vendor_name"] = nil
        world.transport.route(.patch, path: "/api/v1/issues/49/handler", [.ok(.object(after))])
        let report = try await IssueEditsStage(service: world.issues).run(world.pass())
        #expect(report.pushed == 2)
        #expect(
            IssueTestWorld.body(world.transport.requests(path: "/api/v1/issues/49/status")[0])
                == ["status": "in_progress"])
        #expect(
            IssueTestWorld.body(world.transport.requests(path: "/api/v1/issues/49/handler")[0])
                == [
                    "handler_type": "facility", "facility_handler_name": "Maintenance",
                    "facility_handler_contact": "ext 4410",
                ])
        #expect(try world.store.queuedEdits().isEmpty)
        issue = try world.issues.issue(id: "49")
        #expect(issue.handlerLabel == "Facility: Maintenance")
        #expect(issue.vendorName == nil)
    }

    @Test("an edit of an issue not yet on the server waits for its POST")
    func editWaitsForIssue() async throws {
        let world = try IssueTestWorld()
        let issue = try world.issues.createStandalone(facilityID: 21, severity: "low", description: "x")
        _ = try world.issues.updateStatus(id: issue.localID, status: "resolved")
        let report = try await IssueEditsStage(service: world.issues).run(world.pass())
        #expect(report.deferred == 1)
        #expect(world.transport.requests.isEmpty)
        #expect(
            try world.store.queuedEdits().map(\.outbox.deferredReason) == ["waits for its issue to reach the server"])
        #expect(try world.store.queuedEditCount() == 1)
    }
}
