import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCComposition

@Suite("Composition root")
struct CompositionTests {
    @Test("building the root creates the store and sends nothing; status starts empty")
    func buildsOffline() throws {
        let directory = TemporaryDirectory()
        let app = try AppComposition(
            configuration: AppConfiguration(
                dataDirectory: directory.url, server: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")))
        )
        #expect(FileManager.default.fileExists(atPath: directory.path("jqc.sqlite").path))
        let status = try app.outboxStatus()
        #expect(status.pending == ["photos": 0, "inspections": 0, "issues": 0])
        #expect(status.failed.isEmpty)
    }

    @Test("the airplane-mode switch survives a new root over the same data directory")
    func switchPersists() async throws {
        let directory = TemporaryDirectory()
        let config = AppConfiguration(
            dataDirectory: directory.url, server: ServerConfig(store: InMemorySelectionStore()))
        try await AppComposition(configuration: config).connectivity.setForcedOffline(true)
        #expect(await (try AppComposition(configuration: config)).connectivity.isOnline == false)
    }
}
