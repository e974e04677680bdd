import Foundation
import JQCJPEG
import JQCKit
import JQCPhotos
import JQCStorage
import JQCTestSupport
import Testing

@Suite("Photo import")
struct PhotoImportTests {
    @Test(
        "a JPEG is re-encoded at quality 80 into photos/<id>.jpg (0600) and recorded pending with a local:// sentinel")
    func importsGoodJPEG() throws {
        let world = try PhotoTestWorld()
        let photo = try world.importPhoto(.inspection("insp-1", field: "7"))
        #expect(photo.localFile == world.photosFolder.appendingPathComponent("\(photo.id.uuidString).jpg"))
        #expect(photo.sentinel == "local://photos/\(photo.id.uuidString).jpg")
        #expect(PhotoSentinel.photoID(photo.sentinel) == photo.id)
        #expect(world.folderContents() == ["\(photo.id.uuidString).jpg"])
        let attributes = try FileManager.default.attributesOfItem(atPath: photo.localFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: world.photosFolder.path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let bytes = try Data(contentsOf: photo.localFile)
        #expect(Array(bytes.prefix(2)) == [0xFF, 0xD8])
        #expect(photo.bytes == bytes.count)
        // Quality 80 (rule 18): the luminance table is the standard one scaled for 80.
        #expect(try JPEGCodec.readHeader(bytes).luminanceQuantTable == JPEGCodec.standardLuminanceTable(quality: 80))
        #expect(photo.width == 48)
        #expect(photo.height == 32)

        let stored = try #require(try world.service.photo(id: photo.id))
        #expect(stored == photo)
        #expect(stored.state == .pending)
        #expect(stored.syncStatus == .pending)
        #expect(stored.entityType == "inspection")
        #expect(stored.owner == PhotoOwner(kind: .inspection, localID: "insp-1", fieldID: "7"))
        #expect(try world.service.pendingCount() == 1)
        #expect(
            try world.database.read { db in
                try world.service.hasUnsettledPhotos(ownerKind: .inspection, ownerLocalID: "insp-1", in: db)
            })
    }

    @Test("a PNG is refused with the pipeline's sentence and nothing is written or recorded")
    func refusesPNG() throws {
        let world = try PhotoTestWorld()
        let png = world.temp.path("photo.jpg")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).write(to: png)
        #expect {
            try world.service.importPhoto(from: png, owner: .issue("issue-1"), capturedAt: world.clock.now)
        } throws: { error in
            let failure = error as? PhotoError
            return failure?.kind == .refused && (failure?.cause as? JPEGError)?.kind == .notJPEG
                && failure?.message.isEmpty == false
        }
        #expect(world.folderContents() == [])
        #expect(try world.service.photos(for: .issue("issue-1")) == [])
        #expect(try world.service.pendingCount() == 0)
    }

    @Test("when the owner's update in the same transaction throws, neither the row nor the file is kept")
    func ownerUpdateFailureKeepsNothing() throws {
        let world = try PhotoTestWorld()
        #expect(throws: ListenerFailure.self) {
            try world.service.importPhoto(
                from: try world.makeJPEG(), owner: .issue("issue-1"),
                capturedAt: world.clock.now
            ) { db, photo in
                #expect(db.isInsideTransaction)
                #expect(try world.service.photos(for: .issue("issue-1"), in: db).map(\.id) == [photo.id])
                throw ListenerFailure()
            }
        }
        #expect(world.folderContents() == [])
        #expect(try world.service.photos(for: .issue("issue-1")) == [])
    }

    @Test("a field-answering kind needs a field id, a record kind must not have one, an unregistered kind is refused")
    func ownerShapeIsChecked() throws {
        let world = try PhotoTestWorld()
        let input = try world.makeJPEG()
        for owner in [
            PhotoOwner.inspection("insp-1"), PhotoOwner(kind: .issue, localID: "i", fieldID: "3"),
            PhotoOwner.issue(""), PhotoOwner(kind: PhotoOwnerKind("sketch"), localID: "s"),
        ] {
            #expect {
                try world.service.importPhoto(from: input, owner: owner, capturedAt: world.clock.now)
            } throws: { error in
                (error as? PhotoError)?.kind == .invalidOwner
            }
        }
        #expect(world.folderContents() == [])
    }

    @Test(
        "a real EXIF-rotated photo (../shared Portrait_6.jpg, orientation 6) imports upright; skipped without it",
        .enabled(if: PhotoImportTests.fixture("Portrait_6.jpg") != nil, "../shared/fixtures/photos is absent"))
    func fixtureImports() throws {
        let fixture = try #require(PhotoImportTests.fixture("Portrait_6.jpg"))
        let world = try PhotoTestWorld()
        let photo = try world.service.importPhoto(from: fixture, owner: .issue("issue-1"), capturedAt: world.clock.now)
        let header = try JPEGCodec.readHeader(try Data(contentsOf: photo.localFile))
        #expect(header.width == photo.width)
        #expect(header.height == photo.height)
        #expect(header.orientation == .up)
        #expect(photo.width == 1200)
        #expect(photo.height == 1800)
    }

    @Test(
        "a real PNG named .jpg (../shared hopper.png) is refused; skipped without ../shared",
        .enabled(if: PhotoImportTests.fixture("hopper.png") != nil, "../shared/fixtures/photos is absent"))
    func fixturePNGRefused() throws {
        let world = try PhotoTestWorld()
        let renamed = world.temp.path("hopper.jpg")
        try FileManager.default.copyItem(at: try #require(PhotoImportTests.fixture("hopper.png")), to: renamed)
        #expect {
            try world.service.importPhoto(from: renamed, owner: .issue("i"), capturedAt: world.clock.now)
        } throws: { (($0 as? PhotoError)?.cause as? JPEGError)?.kind == .notJPEG }
        #expect(world.folderContents() == [])
    }

    /// A photo fixture under ../shared, or `nil` when absent.
    static func fixture(_ name: String) -> URL? {
        TestPaths.sharedFixture("photos/" + name).flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }
    }

    @Test("deleting a draft's photos removes rows and files; other owners keep theirs")
    func deleteForOwner() throws {
        let world = try PhotoTestWorld()
        let first = try world.importPhoto(.inspection("draft", field: "1"), name: "a.jpg")
        let second = try world.importPhoto(.inspection("draft", field: "2"), name: "b.jpg")
        let other = try world.importPhoto(.inspection("kept", field: "1"), name: "c.jpg")
        #expect(try world.service.photos(for: .inspection("draft")).map(\.id) == [first.id, second.id])
        #expect(try world.service.photos(for: .inspection("draft", field: "2")).map(\.id) == [second.id])
        #expect(try world.service.deletePhotos(for: .inspection("draft")) == 2)
        #expect(world.folderContents() == ["\(other.id.uuidString).jpg"])
        #expect(try world.service.photos(for: .inspection("draft")) == [])
        #expect(
            try world.database.read { db in
                try world.service.hasUnsettledPhotos(ownerKind: .inspection, ownerLocalID: "draft", in: db)
            } == false)
    }

    @Test("discarding a photo removes it; retrying an unknown or unfailed photo says so")
    func discardAndRetryUnknown() throws {
        let world = try PhotoTestWorld()
        let photo = try world.importPhoto(.issue("issue-1"))
        #expect { try world.service.retryFailedPhoto(id: photo.id) } throws: { error in
            (error as? PhotoError)?.kind == .notFound
        }
        try world.service.discardPhoto(id: photo.id)
        #expect(world.folderContents() == [])
        #expect { try world.service.discardPhoto(id: photo.id) } throws: { error in
            (error as? PhotoError)?.kind == .notFound
        }
    }
}

@Suite("Photo import: replacing a field's photo")
struct PhotoReplaceTests {
    @Test("a new photo for an inspection field supersedes that field's unsettled photo, not other fields' or issues'")
    func newPhotoSupersedes() throws {
        let world = try PhotoTestWorld()
        let old = try world.importPhoto(.inspection("insp-1", field: "3"), name: "a.jpg")
        let otherField = try world.importPhoto(.inspection("insp-1", field: "4"), name: "b.jpg")
        let issueOne = try world.importPhoto(.issue("issue-1"), name: "c.jpg")
        let issueTwo = try world.importPhoto(.issue("issue-1"), name: "d.jpg")
        let new = try world.importPhoto(.inspection("insp-1", field: "3"), name: "e.jpg")
        #expect(try world.service.photos(for: .inspection("insp-1", field: "3")).map(\.id) == [new.id])
        #expect(try world.service.photo(id: old.id) == nil)
        let expected = [otherField, issueOne, issueTwo, new].map { "\($0.id.uuidString).jpg" }.sorted()
        #expect(world.folderContents() == expected)
    }
}
