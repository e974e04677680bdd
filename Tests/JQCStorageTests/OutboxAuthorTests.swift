import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCStorage

/// A store written before [authorship] (issue 20): an outbox table without the author columns, with a
/// pending, a failed and a synced row, migrated by this build after the data directory's session is recorded.
private struct OlderStore {
    let directory = TemporaryDirectory(prefix: "jqc-outbox-author")
    let queue: DatabaseQueue
    static let things = OutboxTable("things", key: ["local_id"])
    static let olderTable = """
        CREATE TABLE things (local_id TEXT PRIMARY KEY NOT NULL, sync_status TEXT NOT NULL DEFAULT 'pending',
            sync_attempts INTEGER NOT NULL DEFAULT 0, last_attempt_at TEXT, sync_error TEXT, deferred_reason TEXT)
        """

    init() throws {
        queue = try DatabaseQueue(path: directory.path("store.sqlite").path)
        var old = DatabaseMigrator()
        old.registerMigration(namespace: "test", "1-create") { db in try db.execute(Self.olderTable) }
        old.registerMigration(namespace: "test", "things-outbox-1") { _ in }
        try old.migrate(queue)
        try queue.write { db in
            try db.execute("INSERT INTO things (local_id, sync_attempts) VALUES ('p', 2)")
            try db.execute("INSERT INTO things (local_id, sync_status, sync_error) VALUES ('f', 'failed', 'refused')")
            try db.execute("INSERT INTO things (local_id, sync_status) VALUES ('s', 'synced')")
        }
    }

    /// This build's migration, after recording the session the data directory holds.
    func upgrade(userID: Int64?, username: String?, server: String) throws -> [String] {
        try queue.write { db in try OutboxAuthorship.record(db, userID: userID, username: username, server: server) }
        var migrator = DatabaseMigrator()
        migrator.registerMigration(namespace: "test", "1-create") { db in try db.execute(Self.olderTable) }
        Self.things.registerMigrations(namespace: "test", in: &migrator)
        return try migrator.migrate(queue)
    }

    func state(_ id: String) throws -> OutboxState? {
        try queue.read { db in try Self.things.state(db, OutboxKey(id)) }
    }
}

@Suite("Who made an outbox item, for which server (JQCStorage, issue 20)")
struct OutboxAuthorTests {
    @Test("a store written before authorship keeps its items, attributed to the data directory's user and server")
    func migrationAttributesToTheRecordedSession() throws {
        let store = try OlderStore()
        #expect(try store.upgrade(userID: 7, username: "alex", server: "primary") == ["test/things-outbox-2"])
        let alex = OutboxAuthor(userID: 7, username: "alex", server: "primary")
        #expect(try store.state("p") == OutboxState(attempts: 2, author: alex))
        #expect(try store.state("f") == OutboxState(status: .failed, error: "refused", author: alex))
        #expect(try store.state("s")?.author == alex)
        let counts = try store.queue.read { db in try OutboxAuthorship.unsyncedCounts(db) }
        #expect(counts == [OutboxAuthorship.UnsyncedCount(table: "things", author: alex, count: 2)])
    }

    @Test("with nobody recorded the items are the unknown author's, claimed by the next user to sign in")
    func migrationWithNobodySignedIn() throws {
        let store = try OlderStore()
        _ = try store.upgrade(userID: nil, username: nil, server: "embedded")
        #expect(try store.state("p") == OutboxState(attempts: 2, author: OutboxAuthor(server: "embedded")))
        #expect(try store.queue.read { db in try OutboxAuthorship.session(db) }?.unknownClaimantID == nil)
        try store.queue.write { db in
            try OutboxAuthorship.record(db, userID: 9, username: "sam", server: "embedded")
            try OutboxAuthorship.record(db, userID: 7, username: "alex", server: "embedded")
        }
        let session = try #require(try store.queue.read { db in try OutboxAuthorship.session(db) })
        #expect(session.unknownClaimantID == 9)
        #expect(session.author == OutboxAuthor(userID: 7, username: "alex", server: "embedded"))
    }

    @Test("a new row is stamped with the session at insert; edits, retries and a later session keep it")
    func stampedAtCreationAndKept() throws {
        let store = try OlderStore()
        _ = try store.upgrade(userID: 7, username: "alex", server: "primary")
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        try store.queue.write { db in
            try OutboxAuthorship.record(db, userID: 9, username: "sam", server: "secondary")
            try db.execute("INSERT INTO things (local_id) VALUES ('n')")
            try OutboxAuthorship.record(db, userID: nil, username: nil, server: "primary")  // sam logs out
            try db.execute("INSERT INTO things (local_id) VALUES ('offline')")
            try OutboxAuthorship.record(db, userID: 7, username: "alex", server: "primary")
            try OlderStore.things.markAttempt(db, [OutboxKey("n")], attempts: 1, reason: "busy", at: t0)
            try OlderStore.things.markFailed(db, [OutboxKey("n")], reason: "refused", at: t0)
            try OlderStore.things.retry(db, OutboxKey("n"), at: t0)
            try db.execute("UPDATE things SET sync_error = 'edited' WHERE local_id = 'n'")
        }
        #expect(try store.state("n")?.author == OutboxAuthor(userID: 9, username: "sam", server: "secondary"))
        // Made while signed out: the last signed-in user's, for the server then current.
        #expect(try store.state("offline")?.author == OutboxAuthor(userID: 9, username: "sam", server: "primary"))
        #expect(try store.state("p")?.author == OutboxAuthor(userID: 7, username: "alex", server: "primary"))
    }
}
