import Foundation
import JQCKit
import JQCStorage
import JQCTestSupport
import Testing

@testable import JQCComposition

/// A root over `dataDirectory` whose server (port 9, discard) is never reached.
private func offlineRoot(_ dataDirectory: URL) throws -> AppComposition {
    try AppComposition(
        configuration: AppConfiguration(
            dataDirectory: dataDirectory, server: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9"))))
}

@Suite("Composition root")
struct CompositionTests {
    @Test("building the root creates the store and sends nothing; status starts empty")
    func buildsOffline() throws {
        let directory = TemporaryDirectory()
        let app = try offlineRoot(directory.url)
        #expect(FileManager.default.fileExists(atPath: directory.path("jqc.sqlite").path))
        let status = try app.outboxStatus()
        // Every registered kind is counted (SHELL.md's photos, inspections and issues among them), all zero.
        #expect(Set(["photos", "inspections", "issues"]).isSubset(of: status.pending.keys))
        #expect(status.pending.values.allSatisfy { $0 == 0 })
        #expect(status.pending.count == app.outboxKinds.count)
        #expect(status.failed.isEmpty)
    }

    @Test("a new store is made of 1 KiB pages (an answer writes 1 KiB to the WAL, not 4 KiB); an old one keeps its own")
    func storePageSize() throws {
        let directory = TemporaryDirectory()
        let app = try offlineRoot(directory.url)
        #expect(try app.store.pageSize() == 1_024)

        // A store made before issue 17's change (SQLite's 4 KiB pages: opening it in WAL mode wrote its header)
        // opens as it is, and works.
        let older = TemporaryDirectory()
        #expect(try DatabaseQueue(path: older.path("jqc.sqlite").path).pageSize() == 4_096)
        let reopened = try offlineRoot(older.url)
        #expect(try reopened.store.pageSize() == 4_096)
        #expect(try reopened.outboxStatus().failed.isEmpty)
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

@Suite("The connectivity switch file")
struct ConnectivitySwitchFileTests {
    @Test("missing says online; what save writes reads back; only 'offline' (whitespace aside) says offline")
    func readsWhatIsSaved() throws {
        let directory = TemporaryDirectory()
        let url = directory.path("connectivity")
        let store = FileConnectivityOverrideStore(url: url)
        #expect(store.loadForcedOffline() == false)
        try store.saveForcedOffline(true)
        #expect(store.loadForcedOffline() == true)
        // Another process's instance sees it at once (read on every call, nothing cached).
        #expect(FileConnectivityOverrideStore(url: url).loadForcedOffline() == true)
        try store.saveForcedOffline(false)
        #expect(store.loadForcedOffline() == false)
        for (text, offline) in [("  offline \n", true), ("offline", true), ("offlinex", false), ("", false)] {
            try Data(text.utf8).write(to: url)
            #expect(store.loadForcedOffline() == offline, "\(text.debugDescription)")
        }
        try Data(("offline" + String(repeating: " ", count: 5_000)).utf8).write(to: url)
        #expect(store.loadForcedOffline() == false)  // longer than a switch file ever is
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        #expect(store.loadForcedOffline() == false)  // a folder in its place: unreadable, online
    }
}
