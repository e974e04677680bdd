import Foundation
import JQCKit
import JQCStorage

/// A stored record: JSON object keyed by snake_case names, as the seed writes them.
typealias Doc = [String: JSONValue]

extension Dictionary where Key == String, Value == JSONValue {
    func int(_ key: String) -> Int64? { self[key]?.intValue }
    func string(_ key: String) -> String? { self[key]?.stringValue }
    func bool(_ key: String) -> Bool { self[key]?.boolValue ?? false }
}

/// The kinds of mutable records kept in the `records` table.
enum RecordKind: String, CaseIterable {
    case inspection, issue, schedule, notification, comment, photo
}

/// The immutable reference data (users, contracts, facilities, areas, templates) of a seed.
struct ReferenceData: Sendable {
    var users: [Doc]
    var projects: [Doc]
    var facilities: [Doc]
    var areas: [Doc]
    var templates: [Doc]
    var duplicateFacilityIDs: [Int64]
    var timezone: String

    func user(_ id: Int64?) -> Doc? { id.flatMap { id in users.first { $0.int("id") == id } } }
    func facility(_ id: Int64?) -> Doc? { id.flatMap { id in facilities.first { $0.int("id") == id } } }
    func area(_ id: Int64?) -> Doc? { id.flatMap { id in areas.first { $0.int("id") == id } } }
    func template(_ id: Int64?) -> Doc? { id.flatMap { id in templates.first { $0.int("id") == id } } }
    func projectName(_ id: Int64?) -> String? {
        id.flatMap { id in projects.first { $0.int("id") == id }?.string("name") }
    }

    /// Display name: `full_name` when non-empty, else `username` (rule 38).
    func displayName(_ id: Int64?) -> JSONValue {
        guard let user = user(id) else { return .null }
        let full = user.string("full_name") ?? ""
        return .string(full.trimmingCharacters(in: .whitespaces).isEmpty ? (user.string("username") ?? "") : full)
    }

    var asJSON: JSONValue {
        .object([
            "users": .array(users.map(JSONValue.object)), "projects": .array(projects.map(JSONValue.object)),
            "facilities": .array(facilities.map(JSONValue.object)), "areas": .array(areas.map(JSONValue.object)),
            "templates": .array(templates.map(JSONValue.object)),
            "duplicate_facility_ids_in_reply": .array(duplicateFacilityIDs.map(JSONValue.int)),
            "timezone": .string(timezone),
        ])
    }

    init(json: JSONValue) {
        func list(_ key: String) -> [Doc] { (json[key]?.arrayValue ?? []).compactMap(\.objectValue) }
        users = list("users")
        projects = list("projects")
        facilities = list("facilities")
        areas = list("areas")
        templates = list("templates")
        duplicateFacilityIDs = (json["duplicate_facility_ids_in_reply"]?.arrayValue ?? []).compactMap(\.intValue)
        timezone = json["timezone"]?.stringValue ?? "UTC"
    }
}

/// The server's state in SQLite under the data directory: reference data, records, tokens, counters.
final class ServerStore: Sendable {
    let queue: DatabaseQueue
    let reference: ReferenceData
    let secret: Data
    let uploadsDirectory: URL

    /// Opens (creating and seeding at first start) the store in `directory`.
    /// - Throws: ``DevServerError`` (`storage`, `badSeed`).
    init(
        directory: URL, seed: DevServerConfiguration.Seed, today: @Sendable (String) -> CalendarDay,
        now: Date
    ) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            queue = try DatabaseQueue(path: directory.appendingPathComponent("server.sqlite").path)
            var migrator = DatabaseMigrator()
            migrator.registerMigration(namespace: "devserver", "v1") { db in
                try db.execute("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                try db.execute(
                    """
                    CREATE TABLE records (kind TEXT NOT NULL, id INTEGER NOT NULL, doc TEXT NOT NULL,
                                          PRIMARY KEY (kind, id))
                    """)
                try db.execute(
                    """
                    CREATE TABLE refresh_tokens (token TEXT PRIMARY KEY, user_id INTEGER NOT NULL,
                                                 expires_at REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0)
                    """)
            }
            // Refresh tokens are kept only as keyed digests: a copy of the store cannot be replayed.
            migrator.registerMigration(namespace: "devserver", "v2-refresh-token-digests") { db in
                try db.execute("DELETE FROM refresh_tokens")
                try db.execute("ALTER TABLE refresh_tokens RENAME COLUMN token TO token_digest")
            }
            _ = try migrator.migrate(queue)
        } catch let error as DevServerError {
            throw error
        } catch {
            throw DevServerError(
                .storage,
                "The data directory \(directory.path) could not be opened (\(error)); "
                    + "check that it is writable.")
        }
        uploadsDirectory = directory.appendingPathComponent("uploads", isDirectory: true)
        let existing: String? = try? queue.read { try $0.scalar("SELECT value FROM kv WHERE key = 'reference'") }
        if let existing, let json = try? JSONValue.parse(existing) {
            reference = ReferenceData(json: json)
        } else {
            let seedJSON = try ServerStore.loadSeed(seed)
            let timezone = seedJSON["timezone"]?.stringValue ?? "UTC"
            let serverToday = today(timezone)
            reference = try ServerStore.importSeed(seedJSON, into: queue, today: serverToday, now: now)
            try ServerStore.writePlaceholders(seedJSON, uploads: uploadsDirectory)
        }
        let storedSecret: String? = try? queue.read { try $0.scalar("SELECT value FROM kv WHERE key = 'jwt_secret'") }
        if let storedSecret, let data = Data(base64Encoded: storedSecret) {
            secret = data
        } else {
            let fresh = ServerCrypto.randomBytes(32)
            do {
                try queue.write { db in
                    try db.execute(
                        "INSERT OR REPLACE INTO kv (key, value) VALUES ('jwt_secret', ?)",
                        [fresh.base64EncodedString()])
                }
            } catch {
                throw DevServerError(.storage, "The signing secret could not be stored (\(error)).")
            }
            secret = fresh
        }
        try? FileManager.default.createDirectory(at: uploadsDirectory, withIntermediateDirectories: true)
    }

    // MARK: Seed

    static func loadSeed(_ seed: DevServerConfiguration.Seed) throws -> JSONValue {
        let url: URL
        switch seed {
        case .none:
            return .object(["today": .null, "timezone": "UTC"])
        case .demo:
            guard let resource = Bundle.module.url(forResource: "seed", withExtension: "json") else {
                throw DevServerError(.badSeed, "The demo seed resource is missing from the build; rebuild the package.")
            }
            url = resource
        case .file(let file):
            url = file
        }
        do {
            let json = try JSONValue.parse(Data(contentsOf: url))
            guard json.objectValue != nil else {
                throw DevServerError(.badSeed, "The seed \(url.path) is not a JSON object.")
            }
            return json
        } catch let error as DevServerError {
            throw error
        } catch {
            throw DevServerError(.badSeed, "The seed \(url.path) could not be read (\(error)); give a seed JSON file.")
        }
    }

    private static let dayKeys: Set<String> = ["inspection_date", "due_date"]
    private static let instantKeys: Set<String> = [
        "started_at", "completed_at", "created_at", "verified_at",
        "updated_at",
    ]

    /// Moves every day and instant of a record by `days` (the seed's today → the server's today).
    static func rebase(_ doc: Doc, days: Int) -> Doc {
        guard days != 0 else { return doc }
        var out = doc
        for (key, value) in doc {
            guard let text = value.stringValue, text.count >= 10 else { continue }
            if dayKeys.contains(key) || instantKeys.contains(key),
                let day = CalendarDay(String(text.prefix(10)))
            {
                out[key] = .string(day.adding(days: days).text + text.dropFirst(10))
            }
        }
        return out
    }

    private static func importSeed(
        _ seed: JSONValue, into queue: DatabaseQueue, today: CalendarDay,
        now: Date
    ) throws -> ReferenceData {
        let seedToday = seed["today"]?.stringValue.flatMap(CalendarDay.init) ?? today
        let shift = seedToday.days(until: today)
        var reference = ReferenceData(json: seed)
        reference.users = reference.users.map { user in
            var stored = user
            let salt = ServerCrypto.randomBytes(16)
            stored["salt"] = .string(ServerCrypto.hex(salt))
            stored["password_hash"] = .string(ServerCrypto.passwordHash(user.string("password") ?? "", salt: salt))
            stored["password"] = nil
            return stored
        }
        let kinds: [(String, RecordKind)] = [
            ("inspections", .inspection), ("issues", .issue),
            ("scheduled_inspections", .schedule), ("notifications", .notification),
        ]
        var maxID: Int64 = 0
        for list in [
            "users", "projects", "facilities", "areas", "templates", "inspections", "issues",
            "scheduled_inspections", "notifications",
        ] {
            for item in seed[list]?.arrayValue ?? [] { maxID = max(maxID, item["id"]?.intValue ?? 0) }
        }
        do {
            try queue.write { db in
                for (key, kind) in kinds {
                    for item in seed[key]?.arrayValue ?? [] {
                        guard var doc = item.objectValue, let id = doc.int("id") else { continue }
                        doc["comment"] = nil
                        doc = rebase(doc, days: shift)
                        if kind == .issue, doc["updated_at"] == nil { doc["updated_at"] = doc["created_at"] }
                        try db.execute(
                            "INSERT INTO records (kind, id, doc) VALUES (?, ?, ?)",
                            [kind.rawValue, id, JSONValue.object(doc).jsonString()])
                    }
                }
                try db.execute("INSERT INTO kv (key, value) VALUES ('next_id', ?)", [String(maxID + 1)])
                try db.execute("INSERT INTO kv (key, value) VALUES ('access_generation', '0')")
                try db.execute(
                    "INSERT INTO kv (key, value) VALUES ('seeded_at', ?)",
                    [DateFormats.instantString(now)])
                try db.execute("INSERT INTO kv (key, value) VALUES ('reference', ?)", [reference.asJSON.jsonString()])
            }
        } catch {
            throw DevServerError(
                .storage,
                "The seed could not be stored (\(error)); remove the data directory and retry.")
        }
        return reference
    }

    /// Every `uploads/…` path the seed mentions (form answers, issue photos).
    static func seedPhotoPaths(_ seed: JSONValue) -> [String] {
        var paths = Set<String>()
        func visit(_ value: JSONValue) {
            switch value {
            case .string(let text) where text.hasPrefix("uploads/") && !text.contains(".."): paths.insert(text)
            case .array(let items): items.forEach(visit)
            case .object(let members): members.values.forEach(visit)
            default: break
            }
        }
        visit(seed["inspections"] ?? .null)
        visit(seed["issues"] ?? .null)
        return paths.sorted()
    }

    private static func writePlaceholders(_ seed: JSONValue, uploads: URL) throws {
        for path in seedPhotoPaths(seed) {
            let file = uploads.deletingLastPathComponent().appendingPathComponent(path)
            try? FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: file.path) {
                try? PlaceholderJPEG.data.write(to: file)
            }
        }
    }

    // MARK: Records

    func all(_ db: Database, _ kind: RecordKind) throws -> [Doc] {
        try db.fetchAll("SELECT doc FROM records WHERE kind = ? ORDER BY id", [kind.rawValue]).compactMap { row in
            (row["doc"] as JSONValue?)?.objectValue
        }
    }

    func get(_ db: Database, _ kind: RecordKind, _ id: Int64) throws -> Doc? {
        let row = try db.fetchOne("SELECT doc FROM records WHERE kind = ? AND id = ?", [kind.rawValue, id])
        return (row?["doc"] as JSONValue?)?.objectValue
    }

    func put(_ db: Database, _ kind: RecordKind, _ doc: Doc) throws {
        guard let id = doc.int("id") else { return }
        try db.execute(
            "INSERT OR REPLACE INTO records (kind, id, doc) VALUES (?, ?, ?)",
            [kind.rawValue, id, JSONValue.object(doc).jsonString()])
    }

    /// A new id, greater than every id that exists (CONTRACT.md, Ids).
    func nextID(_ db: Database) throws -> Int64 {
        let text: String = try db.scalar("SELECT value FROM kv WHERE key = 'next_id'") ?? "1"
        let id = Int64(text) ?? 1
        try db.execute("INSERT OR REPLACE INTO kv (key, value) VALUES ('next_id', ?)", [String(id + 1)])
        return id
    }

    func value(_ db: Database, _ key: String) throws -> String? {
        try db.scalar("SELECT value FROM kv WHERE key = ?", [key])
    }

    func setValue(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)", [key, value])
    }
}

extension ServerStore {
    /// Writes the placeholder JPEG for every seed photo path (`uploads/…/seed-*`) referenced by a stored
    /// inspection or issue whose file is missing, so `/static/` keeps serving them after a cleanup.
    func ensureSeedPlaceholders() {
        guard let records = try? queue.read({ db in try all(db, .inspection) + all(db, .issue) }) else { return }
        let paths = ServerStore.seedPhotoPaths(
            .object([
                "inspections": .array(records.map(JSONValue.object)), "issues": .array([]),
            ])
        ).filter { ($0 as NSString).lastPathComponent.hasPrefix("seed-") }
        for path in paths {
            let file = uploadsDirectory.deletingLastPathComponent().appendingPathComponent(path)
            guard !FileManager.default.fileExists(atPath: file.path) else { continue }
            try? FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true)
            try? PlaceholderJPEG.data.write(to: file)
        }
    }
}
