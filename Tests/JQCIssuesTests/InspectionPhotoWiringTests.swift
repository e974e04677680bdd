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

@Suite("Inspection photos (JQCInspections wiring, seed 001 §17, rules 10, 12)")
struct InspectionPhotoWiringTests {
    @Test(
        "an image answer is the local:// sentinel until upload, then the server path; the inspection waits"
    )
    func sentinelThenServerPath() async throws {
        let world = try IssueTestWorld()
        let draft = try world.draft()
        let photo = try world.inspectionPhotos.attach(
            localID: draft.localID, fieldID: "4", file: try world.jpeg("a.jpg"))
        #expect(photo.width == 40)
        #expect(photo.height == 30)
        #expect(try world.inspections.inspection(localID: draft.localID).formData["4"] == .string(photo.sentinel))
        _ = try world.inspections.submit(localID: draft.localID)
        // Rule 12: with the photo unsettled, the inspection is not sent.
        let held = try await InspectionPushStage(
            api: world.api, store: world.inspectionStore,
            photoGate: world.inspectionPhotos
        ).run(world.pass())
        #expect(held.deferred == 1)
        scriptUploads(world)
        world.transport.route(.post, path: "/api/v1/inspections", [.ok(["id": 901])])
        world.transport.route(.get, path: "/api/v1/issues", [.ok([])])
        _ = try await world.runStages()
        let posted = try #require(world.transport.requests(path: "/api/v1/inspections").first)
        #expect(IssueTestWorld.body(posted)?["form_data"] == ["2": "4", "4": "uploads/inspection_photos/p1.jpg"])
        let stored = try world.inspections.inspection(localID: draft.localID)
        #expect(stored.syncStatus == .synced)
        // The listener is idempotent: told again, nothing changes.
        try world.queue.write { db in
            try world.inspectionPhotos.photoUploaded(
                UploadedPhoto(
                    id: photo.id, owner: photo.owner, serverPath: "uploads/inspection_photos/other.jpg",
                    serverURL: nil, localSentinel: photo.sentinel), in: db)
        }
        #expect(
            try world.inspections.inspection(localID: draft.localID).formData["4"]
                == "uploads/inspection_photos/p1.jpg")
        #expect(try world.inspectionPhotos.ownerState(localID: draft.localID, in: world.queue.read { $0 }) == .synced)
    }

    @Test(
        "a photo is refused for a non-image or missing field, a non-JPEG file and a submitted inspection"
    )
    func refusals() throws {
        let world = try IssueTestWorld()
        let draft = try world.draft()
        let good = try world.jpeg("a.jpg")
        func message(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch let error as InspectionsError { return error.message } catch { return "\(error)" }
        }
        #expect(
            message { try world.inspectionPhotos.attach(localID: draft.localID, fieldID: "2", file: good) }
                == "Field \"Floors clean\" (id 2) is a rating field; photos go into image or signature fields.")
        #expect(
            message { try world.inspectionPhotos.attach(localID: draft.localID, fieldID: "99", file: good) }
                == "The form has no field 99; see 'form' for the field ids.")
        let text = world.temp.path("x.jpg")
        try Data("hello".utf8).write(to: text)
        #expect(
            message { try world.inspectionPhotos.attach(localID: draft.localID, fieldID: "5", file: text) }?
                .hasPrefix("The photo \(text.path) was refused: ") == true)
        #expect(try world.inspections.inspection(localID: draft.localID).formData["5"] == nil)
        // A signature is an image (SPEC.md §3).
        try world.inspectionPhotos.attach(localID: draft.localID, fieldID: "5", file: good)
        _ = try world.inspections.submit(localID: draft.localID)
        #expect(
            message { try world.inspectionPhotos.attach(localID: draft.localID, fieldID: "4", file: good) }?
                .contains("photos can only be added to a draft") == true)
    }
}
