import Foundation
import JQCKit
import JQCTestSupport
import Synchronization

@testable import JQCStorage
@testable import JQCSync

#if canImport(Glibc)
    import Glibc
#endif

/// A stand-in feature's outbox for the driver's tests: `letters` (a record outbox) whose rows say whether
/// they wait (`blocked`) or can never be sent (`doomed`), and whose send is scripted per letter.
struct Letter: OutboxItem, Equatable {
    var id: String
    var serverID: Int?
    var outbox: OutboxState
    var outboxKeys: [OutboxKey] { [OutboxKey(id)] }
}

/// What the scripted peer does with one send of a letter.
enum LetterAnswer: Sendable {
    case accept(serverID: Int)
    case fail(SyncFailure)
}

// because: the script, the sent list and the switch are behind Mutexes; the rest is immutable.
final class LetterStore: OutboxFeed, @unchecked Sendable {
    let directory = TemporaryDirectory(prefix: "jqc-letters")
    let database: DatabaseQueue
    let table: OutboxTable
    private let script = Mutex<[String: [LetterAnswer]]>([:])
    private let sent = Mutex<[String]>([])
    let failRecording = Mutex(false)
    /// Letters whose record alone fails (the others are recorded).
    let failRecordingOf = Mutex<Set<String>>([])
    /// Letters whose readiness cannot be read (the store fails).
    let failReadinessOf = Mutex<Set<String>>([])
    /// What happened, in order: `send X`, `record X sees [synced letters another connection sees]`, and
    /// `on disk X after N flushes` (the feed's `sentCommitted`, with the WAL flushes finished by then).
    let events = Mutex<[String]>([])
    /// The store's group-commit flushes (real `fdatasync`s), counted and optionally held.
    let flushes = FlushGate()
    /// When set, ``keepAnswer(_:answer:pass:in:)`` keeps each answer in `kept_id` (as the photos feed keeps a
    /// server path) and each record logs `keep X: here <kept_id in its transaction>, committed [<letters another
    /// connection sees kept>]`.
    let keepsAnswers = Mutex(false)
    /// A letter whose record waits (up to 10 s) until the named letter has been sent.
    let holdRecording = Mutex<(letter: String, until: String)?>(nil)
    private let sendStarted = Mutex<[String: DispatchSemaphore]>([:])
    /// Where the held record copies the store's files once the other letter is out: what a `kill -9` at that
    /// moment leaves on disk (the held transaction is not committed).
    let snapshotWhileHeld = Mutex<TemporaryDirectory?>(nil)

    /// With `snapshot`, a store over a copy of its files (taken by ``snapshotWhileHeld``), as after a restart.
    init(lifecycle: OutboxTable.Lifecycle = .record, copying snapshot: TemporaryDirectory? = nil) throws {
        if let snapshot {
            for name in ["letters.sqlite", "letters.sqlite-wal"]
            where FileManager.default.fileExists(atPath: snapshot.path(name).path) {
                try FileManager.default.copyItem(at: snapshot.path(name), to: directory.path(name))
            }
        }
        database = try DatabaseQueue(path: directory.path("letters.sqlite").path, flush: flushes.flush)
        table = OutboxTable("letters", key: ["id"], lifecycle: lifecycle, touching: "updated_at")
        var migrator = DatabaseMigrator()
        migrator.registerMigration(namespace: "letters", "1-create") { db in
            try db.execute(
                """
                CREATE TABLE letters (id TEXT PRIMARY KEY NOT NULL, server_id INTEGER, kept_id INTEGER, blocked TEXT,
                    doomed TEXT, refused_note TEXT, updated_at TEXT, \(OutboxTable.columns))
                """)
        }
        table.registerMigrations(namespace: "letters", in: &migrator)
        try migrator.migrate(database)
    }

    func add(_ id: String, blocked: String? = nil, doomed: String? = nil, attempts: Int = 0, lastAttemptAt: Date? = nil)
        throws
    {
        try database.write { db in
            try db.execute(
                "INSERT INTO letters (id, blocked, doomed, sync_attempts, last_attempt_at) VALUES (?, ?, ?, ?, ?)",
                [id, blocked, doomed, attempts, lastAttemptAt])
        }
    }

    func unblock(_ id: String) throws {
        try database.write { db in try db.execute("UPDATE letters SET blocked = NULL WHERE id = ?", [id]) }
    }

    func answer(_ id: String, _ answers: LetterAnswer...) { script.withLock { $0[id, default: []] += answers } }

    var sentIDs: [String] { sent.withLock { $0 } }

    func letter(_ id: String) throws -> Letter? {
        try database.read { db in
            try db.fetchOne("SELECT * FROM letters WHERE id = ?", [id]).map {
                Letter(id: $0["id"] ?? "", serverID: $0["server_id"], outbox: OutboxState(row: $0))
            }
        }
    }

    /// The answer kept for `id` (`kept_id`), as committed.
    func kept(_ id: String) throws -> Int? {
        try database.read { db in try db.scalar("SELECT kept_id FROM letters WHERE id = ?", [id]) }
    }

    func refusedNote(_ id: String) throws -> String? {
        try database.read { db in try db.scalar("SELECT refused_note FROM letters WHERE id = ?", [id]) }
    }

    // MARK: OutboxFeed

    func pendingItems() throws -> [Letter] {
        try database.read { db in
            try db.fetchAll("SELECT * FROM letters WHERE sync_status = 'pending' ORDER BY rowid").map {
                Letter(id: $0["id"] ?? "", serverID: $0["server_id"], outbox: OutboxState(row: $0))
            }
        }
    }

    func readiness(of item: Letter) throws -> OutboxReadiness {
        if failReadinessOf.withLock({ $0.contains(item.id) }) { throw TestFailure(failure: .local("unreadable")) }
        return try database.read { db in
            let row = try db.fetchOne("SELECT blocked, doomed FROM letters WHERE id = ?", [item.id])
            if let doomed: String = row?["doomed"] { return .failed(doomed) }
            if let blocked: String = row?["blocked"] { return .waiting(blocked) }
            return .ready
        }
    }

    func send(_ item: Letter, pass: SyncPass) async throws -> Int {
        sent.withLock { $0.append(item.id) }
        events.withLock { $0.append("send \(item.id)") }
        semaphore(item.id).signal()
        let next = script.withLock { script -> LetterAnswer? in
            guard var answers = script[item.id], !answers.isEmpty else { return nil }
            let first = answers.removeFirst()
            script[item.id] = answers
            return first
        }
        switch next {
        case .accept(let serverID): return serverID
        case .fail(let failure): throw TestFailure(failure: failure)
        case nil: throw TestFailure(failure: .rejected("no scripted answer for \(item.id)"))
        }
    }

    func recordSent(_ item: Letter, answer: Int, pass: SyncPass, in db: Database) throws {
        if let hold = holdRecording.withLock({ $0 }), hold.letter == item.id {
            let out = semaphore(hold.until).wait(timeout: .now() + 10) == .success
            events.withLock { $0.append("\(hold.until) out while \(item.id) records: \(out)") }
            if let snapshot = snapshotWhileHeld.withLock({ $0 }) {
                for name in ["letters.sqlite", "letters.sqlite-wal"]
                where FileManager.default.fileExists(atPath: directory.path(name).path) {
                    try FileManager.default.copyItem(at: directory.path(name), to: snapshot.path(name))
                }
            }
        }
        events.withLock { $0.append("record \(item.id) sees \(committedElsewhere())") }
        if keepsAnswers.withLock({ $0 }) {
            let here: Int? = try db.scalar("SELECT kept_id FROM letters WHERE id = ?", [item.id])
            events.withLock {
                $0.append("keep \(item.id): here \(here.map(String.init) ?? "none"), committed \(keptElsewhere())")
            }
        }
        if failRecording.withLock({ $0 }) || failRecordingOf.withLock({ $0.contains(item.id) }) {
            throw TestFailure(failure: .local("the store is full"))
        }
        try db.execute("UPDATE letters SET server_id = ? WHERE id = ?", [answer, item.id])
    }

    func keepAnswer(_ item: Letter, answer: Int, pass: SyncPass, in db: Database) throws {
        guard keepsAnswers.withLock({ $0 }) else { return }
        try db.execute("UPDATE letters SET kept_id = ? WHERE id = ?", [answer, item.id])
    }

    func sentCommitted(_ item: Letter, answer: Int) throws {
        let flushed = flushes.completed.withLock { $0 }
        events.withLock { $0.append("on disk \(item.id) after \(flushed == 0 ? "no" : "some") flushes") }
    }

    func recordRefused(_ item: Letter, reason: String, in db: Database) throws {
        try db.execute("UPDATE letters SET refused_note = ? WHERE id = ?", [reason, item.id])
    }
}

/// The letters store's WAL flushes: counted, and the first one held until a letter is sent when asked.
final class FlushGate: Sendable {
    /// Flushes finished.
    let completed = Mutex(0)
    private let holdFirst = Mutex<DispatchSemaphore?>(nil)

    /// Holds the next flush until `signal` is signalled (at most 120 s: a safety net, not a timing; under the
    /// whole suite on 2 cores the driver can be kept off a thread for seconds).
    func holdNext(until signal: DispatchSemaphore) { holdFirst.withLock { $0 = signal } }

    /// The flush the store's group commit runs: `fdatasync`, after the hold if one is set.
    func flush(_ file: Int32) -> Int32 {
        if let signal = holdFirst.withLock({ hold in
            defer { hold = nil }; return hold
        }) {
            _ = signal.wait(timeout: .now() + 120)
        }
        let result = fdatasync(file)
        completed.withLock { $0 += 1 }
        return result
    }
}

extension LetterStore {
    /// Holds the store's next WAL flush until `id` has been sent.
    func holdNextFlush(untilSent id: String) { flushes.holdNext(until: semaphore(id)) }

    /// The signal that `id` has been sent.
    fileprivate func semaphore(_ id: String) -> DispatchSemaphore {
        sendStarted.withLock { semaphores in
            if let semaphore = semaphores[id] { return semaphore }
            let semaphore = DispatchSemaphore(value: 0)
            semaphores[id] = semaphore
            return semaphore
        }
    }

    /// The synced letters as a second connection sees them: what has been committed, not what the current
    /// transaction holds.
    fileprivate func committedElsewhere() -> [String] {
        seenElsewhere("SELECT id FROM letters WHERE sync_status = 'synced' ORDER BY rowid")
    }

    /// The letters with a kept answer, as a second connection sees them.
    fileprivate func keptElsewhere() -> [String] {
        seenElsewhere("SELECT id FROM letters WHERE kept_id IS NOT NULL ORDER BY rowid")
    }

    /// The ids `sql` selects on a second connection.
    private func seenElsewhere(_ sql: String) -> [String] {
        do {
            let observer = try DatabaseQueue(path: database.path)
            defer { observer.close() }
            return try observer.read { db in try db.fetchAll(sql).map { $0["id"] ?? "" } }
        } catch {
            return ["unreadable: \(error)"]
        }
    }
}
