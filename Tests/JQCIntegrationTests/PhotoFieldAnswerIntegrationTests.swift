import Foundation
import JQCComposition
import JQCInspections
import JQCKit
import JQCPhotos
import Testing

@Suite("Image and signature answers through the composition root (issue 18)")
struct PhotoFieldAnswerIntegrationTests {
    func refusal(_ body: () throws -> Void) -> InspectionsError? {
        do {
            try body()
            return nil
        } catch let error as InspectionsError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("`answer` refuses text into an image field: the photo, its file and the sentinel stay as they were")
    func textRefused() async throws {
        let world = try TestApp()
        try await world.ready()
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11))
        let photo = try world.app.inspectionPhotos.attach(
            localID: draft.localID, fieldID: "9", file: try jpeg(in: world.clientDirectory.url, "a.jpg", seed: 1))
        let error = refusal {
            try world.app.inspections.answer(localID: draft.localID, fieldID: "9", arguments: ["not-a-photo"])
        }
        #expect(error?.kind == .invalidAnswer)
        #expect(error?.message.contains("takes a photo only through 'photo 9 FILE'") == true)
        #expect(
            refusal { try world.app.inspections.answer(localID: draft.localID, fieldID: "9", value: .text("x")) } != nil
        )
        #expect(try world.local(draft.localID).formData["9"] == .string(photo.sentinel))
        #expect(try world.app.photos.photos(for: .inspection(draft.localID)).map(\.id) == [photo.id])
        #expect(FileManager.default.fileExists(atPath: photo.localFile.path))
    }

    @Test("`photo FIELD --clear` and `answer FIELD \"\"` remove the answer and discard the pending photo and its file")
    func clearDiscardsPhoto() async throws {
        let world = try TestApp()
        try await world.ready()
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11))
        try world.app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        let first = try world.app.inspectionPhotos.attach(
            localID: draft.localID, fieldID: "9", file: try jpeg(in: world.clientDirectory.url, "a.jpg", seed: 1))
        let signature = try world.app.inspectionPhotos.attach(
            localID: draft.localID, fieldID: "12", file: try jpeg(in: world.clientDirectory.url, "s.jpg", seed: 2))

        try world.app.inspections.clearPhoto(localID: draft.localID, fieldID: "9")
        #expect(try world.local(draft.localID).formData == ["2": "4", "12": .string(signature.sentinel)])
        #expect(try world.app.photos.photos(for: .inspection(draft.localID)).map(\.id) == [signature.id])
        #expect(!FileManager.default.fileExists(atPath: first.localFile.path))
        #expect(FileManager.default.fileExists(atPath: signature.localFile.path))

        try world.app.inspections.answer(localID: draft.localID, fieldID: "12", arguments: [""])
        #expect(try world.local(draft.localID).formData == ["2": "4"])
        #expect(try world.app.photos.photos(for: .inspection(draft.localID)).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: signature.localFile.path))
        #expect(try world.app.photos.pendingCount() == 0)

        // Nothing is left to upload: the submitted inspection goes alone, without field 9 or 12.
        _ = try world.app.inspections.submit(localID: draft.localID)
        _ = try await world.app.sync.sync(explicit: true)
        let sent = try #require(try world.serverRecords(draft.localID).first)
        #expect(sent["form_data"] == ["2": "4"])
        #expect(try world.local(draft.localID).syncStatus == .synced)
    }
}
