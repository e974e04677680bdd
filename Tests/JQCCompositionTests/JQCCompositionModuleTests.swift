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
        // Every registered kind is counted (SHELL.md's photos, inspections and issues among them), all zero.
        #expect(Set(["photos", "inspections", "issues"]).isSubset(of: status.pending.keys))
        #expect(status.pending.values.allSatisfy { $0 == 0 })
        #expect(status.pending.count == app.outboxKinds.count)
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
