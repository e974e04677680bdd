import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCStorage

/// A store with one record outbox table (`things`, touched `updated_at`) and one queue table (`calls`,
/// a two-column key), both created with the outbox columns and migrated by the outbox helper.
private struct OutboxWorld {
    let directory = TemporaryDirectory(prefix: "jqc-outbox")
    let queue: DatabaseQueue
    static let things = OutboxTable("things", key: ["local_id"], touching: "updated_at")
    static let calls = OutboxTable("calls", key: ["owner", "kind"], lifecycle: .queue)
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    init() throws {
        queue = try DatabaseQueue(path: directory.path("store.sqlite").path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration(namespace: "test", "1-create") { db in
            try db.execute(
                """
                CREATE TABLE things (
                    local_id TEXT PRIMARY KEY NOT NULL, updated_at TEXT NOT NULL, \(OutboxTable.columns))
                """)
            try db.execute(
                """
                CREATE TABLE calls (owner TEXT NOT NULL, kind TEXT NOT NULL, \(OutboxTable.columns),
                    PRIMARY KEY (owner, kind))
                """)
        }
        Self.things.registerMigrations(namespace: "test", in: &migrator)
        Self.calls.registerMigrations(namespace: "test", in: &migrator)
        try migrator.migrate(queue)
        try queue.write { db in
            for id in ["a", "b"] {
                try db.execute(
                    "INSERT INTO things (local_id, updated_at) VALUES (?, ?)", [id, Date(timeIntervalSince1970: 0)])
            }
            try db.execute("INSERT INTO calls (owner, kind) VALUES ('a', 'status'), ('a', 'handler')")
        }
    }

    func thing(_ id: String) throws -> OutboxState? {
        try queue.read { db in try Self.things.state(db, OutboxKey(id)) }
    }

    func updatedAt(_ id: String) throws -> Date? {
        try queue.read { db in try db.scalar("SELECT updated_at FROM things WHERE local_id = ?", [id]) }
    }

    func callKinds() throws -> [String] {
        try queue.read { db in
            try db.fetchAll("SELECT kind FROM calls ORDER BY kind").compactMap { $0["kind"] as String? }
        }
    }
}

@Suite("The outbox columns and their writers (JQCStorage)")
struct OutboxTableTests {
    @Test("a new row is a fresh pending item")
    func freshRow() throws {
        let world = try OutboxWorld()
        #expect(try world.thing("a") == OutboxState())
        #expect(try world.thing("missing") == nil)
    }

    @Test("a try that keeps an item pending counts, records the reason it waits, and touches updated_at")
    func attempt() throws {
        let world = try OutboxWorld()
        try world.queue.write { db in
            try OutboxWorld.things.markAttempt(
                db, [OutboxKey("a")], attempts: 2, reason: "The server had a problem.", at: world.t0)
        }
        #expect(
            try world.thing("a")
                == OutboxState(
                    status: .pending, attempts: 2, lastAttemptAt: world.t0, error: "The server had a problem.",
                    deferredReason: "The server had a problem."))
        #expect(try world.updatedAt("a") == world.t0)
        #expect(try world.thing("b") == OutboxState())
    }

    @Test("waiting records a reason without a try and without touching updated_at")
    func waiting() throws {
        let world = try OutboxWorld()
        try world.queue.write { db in
            try OutboxWorld.things.markWaiting(db, [OutboxKey("a")], reason: "waits for its photos")
        }
        #expect(try world.thing("a") == OutboxState(deferredReason: "waits for its photos"))
        #expect(try world.updatedAt("a") == Date(timeIntervalSince1970: 0))
    }

    @Test("a synced record keeps its row with error and reason cleared; a failed one keeps its sentence")
    func syncedAndFailed() throws {
        let world = try OutboxWorld()
        try world.queue.write { db in
            try OutboxWorld.things.markAttempt(
                db, [OutboxKey("a"), OutboxKey("b")], attempts: 1, reason: "r", at: world.t0)
            try OutboxWorld.things.markSynced(db, [OutboxKey("a")], at: world.t0.addingTimeInterval(1))
            try OutboxWorld.things.markFailed(
                db, [OutboxKey("b")], reason: "Refused.", at: world.t0.addingTimeInterval(2))
        }
        #expect(
            try world.thing("a")
                == OutboxState(status: .synced, attempts: 1, lastAttemptAt: world.t0.addingTimeInterval(1)))
        #expect(
            try world.thing("b")
                == OutboxState(
                    status: .failed, attempts: 1, lastAttemptAt: world.t0.addingTimeInterval(2), error: "Refused."))
        #expect(try world.updatedAt("b") == world.t0.addingTimeInterval(2))
    }

    @Test("retry puts only a failed record back as a fresh pending item; discard deletes only a failed one")
    func retryAndDiscard() throws {
        let world = try OutboxWorld()
        let (retriedPending, discardedPending) = try world.queue.write { db in
            (
                try OutboxWorld.things.retry(db, OutboxKey("a"), at: world.t0),
                try OutboxWorld.things.discard(db, OutboxKey("a"))
            )
        }
        #expect(!retriedPending && !discardedPending)
        #expect(try world.thing("a") == OutboxState())
        let retried = try world.queue.write { db in
            try OutboxWorld.things.markAttempt(db, [OutboxKey("a")], attempts: 4, reason: "r", at: world.t0)
            try OutboxWorld.things.markFailed(db, [OutboxKey("a"), OutboxKey("b")], reason: "No.", at: world.t0)
            return try OutboxWorld.things.retry(db, OutboxKey("a"), at: world.t0.addingTimeInterval(5))
        }
        #expect(retried)
        #expect(try world.thing("a") == OutboxState())
        #expect(try world.updatedAt("a") == world.t0.addingTimeInterval(5))
        #expect(try world.queue.write { db in try OutboxWorld.things.discard(db, OutboxKey("b")) })
        #expect(try world.thing("b") == nil)
    }

    @Test("a queued call is deleted once sent and when refused; its composite key picks one row")
    func queueLifecycle() throws {
        let world = try OutboxWorld()
        try world.queue.write { db in
            try OutboxWorld.calls.markAttempt(db, [OutboxKey("a", "status")], attempts: 1, reason: "busy", at: world.t0)
        }
        let status = try world.queue.read { db in try OutboxWorld.calls.state(db, OutboxKey("a", "status")) }
        #expect(status?.attempts == 1 && status?.deferredReason == "busy")
        #expect(
            try world.queue.read { db in try OutboxWorld.calls.state(db, OutboxKey("a", "handler")) } == OutboxState())
        try world.queue.write { db in try OutboxWorld.calls.markSynced(db, [OutboxKey("a", "status")], at: world.t0) }
        #expect(try world.callKinds() == ["handler"])
        try world.queue.write { db in
            try OutboxWorld.calls.markFailed(db, [OutboxKey("a", "handler")], reason: "No.", at: world.t0)
        }
        #expect(try world.callKinds() == [])
    }

    @Test("the outbox migration adds the missing columns to an older table and keeps every row's state")
    func migrationOfAnOlderTable() throws {
        let directory = TemporaryDirectory(prefix: "jqc-outbox-old")
        let queue = try DatabaseQueue(path: directory.path("store.sqlite").path)
        let olderTable = """
            CREATE TABLE things (local_id TEXT PRIMARY KEY NOT NULL, sync_status TEXT NOT NULL DEFAULT 'pending',
                sync_attempts INTEGER NOT NULL DEFAULT 0, last_attempt_at TEXT, sync_error TEXT)
            """
        let olderQueue =
            "CREATE TABLE calls (owner TEXT NOT NULL, kind TEXT NOT NULL, sync_attempts INTEGER NOT NULL DEFAULT 0)"
        var old = DatabaseMigrator()
        old.registerMigration(namespace: "test", "1-create") { db in
            try db.execute(olderTable)
            try db.execute(olderQueue)
        }
        try old.migrate(queue)
        try queue.write { db in
            try db.execute(
                "INSERT INTO things (local_id, sync_status, sync_attempts, sync_error) VALUES ('p', 'pending', 3, 'busy')"
            )
            try db.execute("INSERT INTO things (local_id, sync_status) VALUES ('f', 'failed')")
            try db.execute("INSERT INTO calls (owner, kind, sync_attempts) VALUES ('a', 'status', 2)")
        }
        var new = DatabaseMigrator()
        new.registerMigration(namespace: "test", "1-create") { db in
            try db.execute(olderTable)
            try db.execute(olderQueue)
        }
        OutboxTable("things", key: ["local_id"]).registerMigrations(namespace: "test", in: &new)
        OutboxTable("calls", key: ["owner", "kind"], lifecycle: .queue).registerMigrations(namespace: "test", in: &new)
        #expect(
            try new.migrate(queue) == [
                "test/things-outbox-1", "test/things-outbox-2", "test/calls-outbox-1", "test/calls-outbox-2",
            ])
        let things = OutboxTable("things", key: ["local_id"])
        let calls = OutboxTable("calls", key: ["owner", "kind"], lifecycle: .queue)
        let (pending, failed, call) = try queue.read { db in
            (
                try things.state(db, OutboxKey("p")), try things.state(db, OutboxKey("f")),
                try calls.state(db, OutboxKey("a", "status"))
            )
        }
        #expect(pending == OutboxState(attempts: 3, error: "busy"))
        #expect(failed?.status == .failed)
        #expect(call == OutboxState(status: .pending, attempts: 2))
        #expect(try new.migrate(queue) == [])
    }

    @Test("a row's outbox columns decode into the state and back into INSERT values in column order")
    func columnValues() throws {
        let world = try OutboxWorld()
        let state = OutboxState(
            status: .failed, attempts: 5, lastAttemptAt: world.t0, error: "out of tries", deferredReason: nil)
        try world.queue.write { db in
            let columns = (["local_id", "updated_at"] + OutboxTable.columnNames).joined(separator: ", ")
            try db.execute(
                "INSERT INTO things (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)", ["c", world.t0] + state.columnValues)
        }
        #expect(try world.thing("c") == state)
        #expect(OutboxKey("a", 7).description == "a/7")
    }
}
