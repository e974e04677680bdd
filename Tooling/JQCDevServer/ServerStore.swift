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

/// The immutable reference data (users, contracts, facilities, areas, templates) of a seed, with its
/// lookups by id built once (a contract of 3,000 facilities and 15,000 areas is looked up per record).
struct ReferenceData: Sendable {
    let users: [Doc]
    let projects: [Doc]
    let facilities: [Doc]
    let areas: [Doc]
    let templates: [Doc]
    let duplicateFacilityIDs: Set<Int64>
    let duplicateFacilityIDList: [Int64]
    let timezone: String
    private let usersByID: [Int64: Doc]
    private let facilitiesByID: [Int64: Doc]
    private let areasByID: [Int64: Doc]
    private let templatesByID: [Int64: Doc]
    private let projectsByID: [Int64: Doc]
    /// Contract id → the ids of its facilities, active or not, in seed order.
    private let facilityIDsByProject: [Int64: [Int64]]

    func user(_ id: Int64?) -> Doc? { id.flatMap { usersByID[$0] } }
    func facility(_ id: Int64?) -> Doc? { id.flatMap { facilitiesByID[$0] } }
    func area(_ id: Int64?) -> Doc? { id.flatMap { areasByID[$0] } }
    func template(_ id: Int64?) -> Doc? { id.flatMap { templatesByID[$0] } }
    func projectName(_ id: Int64?) -> String? { id.flatMap { projectsByID[$0]?.string("name") } }

    /// The ids of every facility (active or not) of the contracts `projectIDs`.
    func facilityIDs(ofProjects projectIDs: Set<Int64>) -> Set<Int64> {
        var ids = Set<Int64>()
        for project in projectIDs { ids.formUnion(facilityIDsByProject[project] ?? []) }
        return ids
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
            "duplicate_facility_ids_in_reply": .array(duplicateFacilityIDList.map(JSONValue.int)),
            "timezone": .string(timezone),
        ])
    }

    init(json: JSONValue) {
        func list(_ key: String) -> [Doc] { (json[key]?.arrayValue ?? []).compactMap(\.objectValue) }
        // The first record with an id wins, as a linear search from the front would find it.
        func byID(_ docs: [Doc]) -> [Int64: Doc] {
            var index: [Int64: Doc] = [:]
            for doc in docs { if let id = doc.int("id"), index[id] == nil { index[id] = doc } }
            return index
        }
        users = list("users")
        projects = list("projects")
        facilities = list("facilities")
        areas = list("areas")
        templates = list("templates")
        duplicateFacilityIDList = (json["duplicate_facility_ids_in_reply"]?.arrayValue ?? []).compactMap(\.intValue)
        duplicateFacilityIDs = Set(duplicateFacilityIDList)
        timezone = json["timezone"]?.stringValue ?? "UTC"
        usersByID = byID(users)
        facilitiesByID = byID(facilities)
        areasByID = byID(areas)
        templatesByID = byID(templates)
        projectsByID = byID(projects)
        var byProject: [Int64: [Int64]] = [:]
        for facility in facilities {
            guard let id = facility.int("id"), let project = facility.int("project_id") else { continue }
            byProject[project, default: []].append(id)
        }
        facilityIDsByProject = byProject
    }
}

/// The server's state in SQLite under the data directory: reference data, records, tokens, counters.
final class ServerStore: Sendable {
    let queue: DatabaseQueue
    let reference: ReferenceData
    let secret: Data
    let uploadsDirectory: URL

    /// The store's file name inside the data directory (holds the JWT signing secret: kept 0600).
    static let storeFileName = "server.sqlite"

    /// Opens (creating and seeding at first start) the store in `directory`: the directory 0700, the store
    /// and its `-wal`/`-shm` files 0600 whatever the umask (issue 19).
    /// - Throws: ``DevServerError`` (`unsafeDataDirectory`, `storage`, `badSeed`).
    init(
        directory: URL, seed: DevServerConfiguration.Seed, today: @Sendable (String) -> CalendarDay,
        now: Date
    ) throws {
        try PrivateFiles.prepareDataDirectory(directory)
        let storeFile = directory.appendingPathComponent(Self.storeFileName)
        let companions = ["-wal", "-shm", "-journal"].map { URL(fileURLWithPath: storeFile.path + $0) }
        do {
            // SQLite creates `-wal` and `-shm` with the database file's own mode (os_unix.c,
            // findCreateFileMode), so the file is made 0600 before SQLite first opens it.
            try PrivateFiles.prepareFile(storeFile)
            companions.forEach(PrivateFiles.tighten)
            // A dev server: a killed process loses nothing in WAL mode at NORMAL; only a power cut may lose
            // the last commits. Each request then costs no fsync, so benchmarks measure the client.
            queue = try DatabaseQueue(
                path: storeFile.path, configuration: DatabaseConfiguration(synchronous: .normal))
            _ = try Self.migrator.migrate(queue)
            companions.forEach(PrivateFiles.tighten)
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
        try? PrivateFiles.createFolder(uploadsDirectory)
        try? storeSeedScores()
    }

    /// Stores the score of every inspection that has none (seed records carry no `overall_score`): the same
    /// value the payload showed by scoring it on each read (a template never changes, and every write of
    /// `form_data` stores its score), so dashboard stats read stored numbers only (issue 17).
    private func storeSeedScores() throws {
        try queue.write { db in
            let rows = try db.fetchAll(
                "SELECT doc FROM records WHERE kind = 'inspection' AND json_type(doc, '$.overall_score') IS NULL")
            for row in rows {
                guard var doc = (row["doc"] as JSONValue?)?.objectValue else { continue }
                let schema = reference.template(doc.int("template_id"))?["form_schema"] ?? .array([])
                doc["overall_score"] =
                    ServerScoring.score(schema: schema, formData: doc["form_data"]?.objectValue ?? [:])
                    .map(JSONValue.double) ?? .null
                try put(db, .inspection, doc)
            }
        }
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
        let users = ReferenceData(json: seed).users.map { user in
            var stored = user
            let salt = ServerCrypto.randomBytes(16)
            stored["salt"] = .string(ServerCrypto.hex(salt))
            stored["password_hash"] = .string(ServerCrypto.passwordHash(user.string("password") ?? "", salt: salt))
            stored["password"] = nil
            return stored
        }
        var members = seed.objectValue ?? [:]
        members["users"] = .array(users.map(JSONValue.object))
        let reference = ReferenceData(json: .object(members))
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
            try? PrivateFiles.createFolder(file.deletingLastPathComponent())
            if !FileManager.default.fileExists(atPath: file.path) {
                try? AtomicFile.write(PlaceholderJPEG.data, to: file, permissions: PrivateFiles.fileMode)
            }
        }
    }

    // MARK: Schema

    /// A record member kept as a generated column of `records`, so lookups and aggregates read it without
    /// parsing documents (issue 17). A column is NULL unless the member has the JSON type the server reads it
    /// as, so SQL and the Swift accessors agree. Integers are the number; strings are kept as their JSON text,
    /// quotes and escapes included (`"completed"`) — SQLite's `json_extract` ends a string at an escaped NUL,
    /// the text keeps every character — and are compared with ``JSONValue/string(_:)`` arguments, which bind
    /// as that same text (the server writes every document with ``JSONValue/jsonString(sortedKeys:)``).
    enum Column: String, CaseIterable {
        case localID = "local_id"
        case inspectorID = "inspector_id"
        case reportedByID = "reported_by_id"
        case assignedToID = "assigned_to_id"
        case userID = "user_id"
        case issueID = "issue_id"
        case facilityID = "facility_id"
        case parentInspectionID = "parent_inspection_id"
        case status
        case inspectionDate = "inspection_date"
        case dueDate = "due_date"

        /// The JSON type (`json_type`) the member is read as: `text` or `integer`.
        var jsonType: String {
            switch self {
            case .localID, .status, .inspectionDate, .dueDate: "text"
            default: "integer"
            }
        }

        /// The generated column's definition.
        var definition: String {
            let path = "'$.\(rawValue)'"
            let value = jsonType == "text" ? "doc -> \(path)" : "json_extract(doc, \(path))"
            return """
                \(rawValue) \(jsonType == "text" ? "TEXT" : "INTEGER") GENERATED ALWAYS AS
                (CASE json_type(doc, \(path)) WHEN '\(jsonType)' THEN \(value) END) VIRTUAL
                """
        }

        /// The lookup index on `(kind, column, id)` — in id order, so a lookup needs no sort — for the columns
        /// requests search by; `nil` for the others.
        var index: String? {
            switch self {
            case .localID, .inspectorID, .reportedByID, .assignedToID, .userID, .issueID, .parentInspectionID:
                "records_by_\(rawValue)"
            default: nil
            }
        }
    }

    /// Every migration of the server's store, in order.
    static var migrator: DatabaseMigrator {
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
        // Lookups by local_id (dedupe), owner, parent and issue use an index instead of parsing every record.
        migrator.registerMigration(namespace: "devserver", "v3-record-columns") { db in
            for column in Column.allCases {
                try db.execute("ALTER TABLE records ADD COLUMN \(column.definition)")
                if let index = column.index {
                    try db.execute(
                        """
                        CREATE INDEX \(index) ON records (kind, \(column.rawValue), id)
                        WHERE \(column.rawValue) IS NOT NULL
                        """)
                }
            }
        }
        return migrator
    }

    // MARK: Records

    func all(_ db: Database, _ kind: RecordKind) throws -> [Doc] {
        try docs(db.fetchAll("SELECT doc FROM records WHERE kind = ? ORDER BY id", [kind.rawValue]))
    }

    /// The records of `kind` whose `column` equals `value`, by id (an index search for indexed columns).
    func all(_ db: Database, _ kind: RecordKind, where column: Column, is value: Int64) throws -> [Doc] {
        try docs(
            db.fetchAll(
                "SELECT doc FROM records WHERE kind = ? AND \(column.rawValue) = ? ORDER BY id", [kind.rawValue, value])
        )
    }

    /// The SQL of the `local_id` dedupe lookup of `kind` owned through `owner` (`?1` kind, `?2` the local id as
    /// its JSON text, see ``Column``; `?3` owner): an index search on `records_by_local_id` (named: without
    /// statistics SQLite may prefer the owner's index, which reads every record of that user).
    static func dedupeSQL(owner: Column) -> String {
        "SELECT doc FROM records INDEXED BY records_by_local_id "
            + "WHERE kind = ?1 AND local_id = ?2 AND \(owner.rawValue) = ?3 ORDER BY id LIMIT 1"
    }

    /// The first record of `kind` with `localID` whose `owner` column is `ownerID` (CONTRACT.md: (ext)
    /// dedupe on `local_id`, same user), or `nil`.
    func existing(_ db: Database, _ kind: RecordKind, localID: String, owner: Column, ownerID: Int64) throws -> Doc? {
        try docs(db.fetchAll(Self.dedupeSQL(owner: owner), [kind.rawValue, JSONValue.string(localID), ownerID])).first
    }

    /// The SQL of the ids of the issues `?1` reported or is assigned to (CONTRACT.md, `GET /issues`): a union
    /// of two index searches (`records_by_reported_by_id`, `records_by_assigned_to_id`); an `OR` would let
    /// SQLite, without statistics, scan every issue instead.
    static let visibleIssueIDsSQL = """
        SELECT id FROM records WHERE kind = 'issue' AND reported_by_id = ?1
        UNION SELECT id FROM records WHERE kind = 'issue' AND assigned_to_id = ?1
        """

    /// The issues `userID` reported or is assigned to, by id (newest first when `newestFirst`).
    func visibleIssues(_ db: Database, userID: Int64, newestFirst: Bool) throws -> [Doc] {
        try docs(
            db.fetchAll(
                """
                SELECT doc FROM records WHERE kind = 'issue' AND id IN (\(Self.visibleIssueIDsSQL))
                ORDER BY id \(newestFirst ? "DESC" : "ASC")
                """, [userID]))
    }

    private func docs(_ rows: [Row]) -> [Doc] {
        rows.compactMap { row in (row["doc"] as JSONValue?)?.objectValue }
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
            try? PrivateFiles.createFolder(file.deletingLastPathComponent())
            try? AtomicFile.write(PlaceholderJPEG.data, to: file, permissions: PrivateFiles.fileMode)
        }
    }
}

extension ServerStore {
    /// Adds one to the counter `key` in `kv` (`GET /__admin/state`'s `duplicates` and `refreshes`).
    func increment(_ db: Database, _ key: String) throws {
        try db.execute(
            """
            INSERT INTO kv (key, value) VALUES (?, '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
            """, [key])
    }

    /// The counter `key` (0 when never incremented).
    func counter(_ db: Database, _ key: String) throws -> Int64 {
        Int64(try value(db, key) ?? "0") ?? 0
    }
}
