import Foundation
import JQCKit
import JQCNetwork
import JQCSync
import Testing

@testable import JQCInspections

@Suite("Inspections push stage (seed 001 §8 step 2)")
struct InspectionPushStageTests {
    func submitted(_ world: InspectionFixture, photo: String? = nil) throws -> Inspection {
        let draft = try world.answeredDraft()
        if let photo {
            try world.service.save(
                localID: draft.localID, formData: draft.formData.merging(["4": .string(photo)]) { $1 })
        }
        return try world.service.submit(localID: draft.localID).inspection
    }

    @Test("rule 10: the body carries local_id and the answers with local:// values stripped; GPS only when set")
    func payload() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft(area: nil)
        try world.service.save(
            localID: draft.localID,
            formData: draft.formData.merging([
                "4": "local:///tmp/p.jpg", "5": ["local://x", "kept"],
            ]) { $1 })
        let inspection = try world.service.submit(
            localID: draft.localID, location: Coordinate(latitude: 1.5, longitude: 2.5)
        ).inspection
        let body = InspectionPushStage.payload(for: inspection)
        #expect(body["local_id"] == "local-1")
        #expect(body["form_data"] == ["2": "4", "3": "Pass", "4": "", "5": ["", "kept"]])
        #expect(body["status"] == "completed")
        #expect(body["area_id"] == nil)
        #expect(body["submit_latitude"] == 1.5)
        #expect(body["submit_longitude"] == 2.5)
        #expect(body["overall_score"] == 90.0)
        #expect(body["parent_inspection_id"] == nil)
    }

    @Test("a success stores the server id and marks the inspection synced")
    func success() async throws {
        let world = try InspectionFixture()
        let inspection = try submitted(world)
        world.transport.route(
            .post, path: "/api/v1/inspections", [.ok(["id": 3001, "local_id": "local-1"], status: 201)])
        let report = try await world.stage().run(world.pass())
        #expect(report.pushed == 1)
        let stored = try world.service.inspection(localID: inspection.localID)
        #expect(stored.serverID == 3001)
        #expect(stored.syncStatus == .synced)
        #expect(stored.badge == .completed)
        #expect(try world.store.pendingCount() == 0)
    }

    @Test("a 422 poison item is failed alone with the server's sentence while the next one lands")
    func poisonItem() async throws {
        let world = try InspectionFixture()
        let first = try submitted(world)
        world.clock.advance(by: 1)
        let second = try submitted(world)
        world.transport.route(
            .post, path: "/api/v1/inspections",
            [
                .error(422, "The facility 11 is not in your contracts."), .ok(["id": 3002], status: 201),
            ])
        let report = try await world.stage().run(world.pass())
        #expect(report.failed == 1)
        #expect(report.pushed == 1)
        #expect(try world.service.inspection(localID: first.localID).syncStatus == .failed)
        #expect(
            try world.service.inspection(localID: first.localID).syncError
                == "The facility 11 is not in your contracts.")
        #expect(try world.service.inspection(localID: second.localID).serverID == 3002)
        #expect(
            try world.store.failed() == [
                FailedOutboxItem(
                    kind: "inspection", localID: first.localID,
                    reason: "The facility 11 is not in your contracts.")
            ])
    }

    @Test("a 5xx keeps it pending with one counted try; the fifth counted try fails it; nothing is deleted")
    func serverErrors() async throws {
        let world = try InspectionFixture()
        let inspection = try submitted(world)
        world.transport.route(.post, path: "/api/v1/inspections", [.error(500, "boom")], repeatLast: true)
        _ = try await world.stage().run(world.pass())
        let once = try world.service.inspection(localID: inspection.localID)
        #expect(once.syncStatus == .pending)
        #expect(once.syncAttempts == 1)
        #expect(once.syncError == "The server had a problem (HTTP 500): boom")
        for _ in 0..<4 { _ = try await world.stage().run(world.pass()) }
        let failed = try world.service.inspection(localID: inspection.localID)
        #expect(failed.syncStatus == .failed)
        #expect(failed.syncError == "The server had a problem (HTTP 500): boom (gave up after 5 tries)")
        #expect(try world.service.list().count == 1)
        try world.service.retry(localID: inspection.localID)
        #expect(try world.service.inspection(localID: inspection.localID).syncAttempts == 0)
    }

    @Test("an automatic pass waits out the backoff; an explicit one tries at once")
    func backoff() async throws {
        let world = try InspectionFixture()
        _ = try submitted(world)
        world.transport.route(.post, path: "/api/v1/inspections", [.error(503, "busy"), .ok(["id": 1], status: 201)])
        _ = try await world.stage().run(world.pass(explicit: false))
        let waiting = try await world.stage().run(world.pass(explicit: false))
        #expect(waiting.deferred == 1)
        #expect(
            try world.service.list().first?.outbox.deferredReason
                == "waits before its next automatic try (after 1 failed try: The server had a problem (HTTP 503): busy)"
        )
        #expect(world.transport.requests(path: "/api/v1/inspections").count == 1)
        let explicit = try await world.stage().run(world.pass(explicit: true))
        #expect(explicit.pushed == 1)
    }

    @Test("rule 12: an inspection whose photos are not settled waits, untouched but for the reason it waits")
    func photoGate() async throws {
        let world = try InspectionFixture()
        let inspection = try submitted(world, photo: "local:///photos/a.jpg")
        let report = try await world.stage(gate: SetPhotoGate(waiting: [inspection.localID])).run(world.pass())
        #expect(report.deferred == 1)
        #expect(world.transport.requests.isEmpty)
        #expect(
            try world.service.inspection(localID: inspection.localID).outbox.deferredReason
                == "waits for its photos to upload")
        #expect(try world.service.inspection(localID: inspection.localID).syncAttempts == 0)
    }

    @Test("426 stops the pass and leaves the item pending and untouched")
    func updateRequired() async throws {
        let world = try InspectionFixture()
        let inspection = try submitted(world)
        world.transport.route(.post, path: "/api/v1/inspections", [.error(426, "update_required")])
        await #expect(throws: SyncStopError.self) { try await world.stage().run(world.pass()) }
        let stored = try world.service.inspection(localID: inspection.localID)
        #expect(stored.syncStatus == .pending)
        #expect(stored.syncAttempts == 0)
    }
}

/// Issue 18: `local://` values inside table answers (objects, and arrays of them) are stripped like top-level
/// values and arrays (rule 10).
@Suite("local:// stripped inside table answers (rule 10)")
struct TableAnswerStripTests {
    @Test("a table answer keeps its shape with every local:// value replaced by an empty string")
    func tables() {
        let formData: [String: JSONValue] = [
            "7": ["row1": ["photo": "local://photos/a.jpg", "note": "ok"], "row2": "local://photos/b.jpg"],
            "8": [["cell": "local://photos/c.jpg", "count": 3], ["cell": "kept"]],
            "9": "localhost is not a sentinel",
        ]
        #expect(
            InspectionPushStage.stripLocalReferences(formData) == [
                "7": ["row1": ["photo": "", "note": "ok"], "row2": ""],
                "8": [["cell": "", "count": 3], ["cell": "kept"]],
                "9": "localhost is not a sentinel",
            ])
    }
}

extension InspectionPushStageTests {
    @Test("the push list is the pending submissions without their pinned schemas: same rows, order and bodies")
    func slimPushList() throws {
        let world = try InspectionFixture()
        let first = try submitted(world)
        let second = try submitted(world, photo: "local:///tmp/q.jpg")
        _ = try world.answeredDraft()  // a draft is never on the list
        let full = try world.store.pendingSubmissions()
        let slim = try world.store.pendingPushes()
        #expect(slim.map(\.localID) == [first.localID, second.localID])
        #expect(slim.map(\.localID) == full.map(\.localID))
        #expect(full.allSatisfy { $0.schemaSnapshot != .array([]) })  // the full record does carry the schema
        #expect(slim.allSatisfy { $0.schemaSnapshot == .array([]) })
        #expect(slim.map(\.outbox) == full.map(\.outbox))
        #expect(slim.map(InspectionPushStage.payload(for:)) == full.map(InspectionPushStage.payload(for:)))
        #expect(slim.last.map(InspectionPushStage.payload(for:))?["form_data"]?["4"] == "")
    }
}
