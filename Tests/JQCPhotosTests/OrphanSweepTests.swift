import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCPhotos

/// Issue 18: a kill -9 during an import leaves a file no row refers to (the atomic write's temporary, or the
/// renamed file before its row commits); the photos stage's sweep removes it once it is older than any
/// import in progress could be, and never a file a row refers to.
@Suite("The orphan photo-file sweep")
struct OrphanSweepTests {
    private func age(_ file: URL, hours: Double) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-hours * 3_600)], ofItemAtPath: file.path)
    }

    @Test("a write left half-done is swept once old, a fresh one is kept, and a file a row refers to never goes")
    func sweep() async throws {
        let world = try PhotoTestWorld()
        let photo = try world.importPhoto(.issue("issue-1"))
        try age(photo.localFile, hours: 2)  // old, but its row refers to it
        let leftover = world.photosFolder.appendingPathComponent("\(UUID().uuidString).jpg.tmp-4242-17")
        try Data([0xFF, 0xD8]).write(to: leftover)
        try age(leftover, hours: 2)
        let inProgress = world.photosFolder.appendingPathComponent("\(UUID().uuidString).jpg.tmp-4243-18")
        try Data([0xFF, 0xD8]).write(to: inProgress)
        let renamedNoRow = world.photosFolder.appendingPathComponent("\(UUID().uuidString).jpg")
        try Data([0xFF, 0xD8]).write(to: renamedNoRow)
        try age(renamedNoRow, hours: 2)
        world.clock.set(Date())
        world.transport.route(.post, path: "/api/v1/photos/upload", [.error(503, "Busy.")], repeatLast: true)
        _ = try await world.service.uploadPending(world.pass())
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(!FileManager.default.fileExists(atPath: renamedNoRow.path))
        #expect(FileManager.default.fileExists(atPath: inProgress.path))
        #expect(FileManager.default.fileExists(atPath: photo.localFile.path))
        #expect(try world.service.photo(id: photo.id)?.localFile == photo.localFile)
    }
}
