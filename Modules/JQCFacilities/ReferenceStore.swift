import Foundation
import JQCForms
import JQCKit
import JQCStorage

/// The reference tables (issue 7): facilities, areas (a foreign key to their facility, rule 57),
/// templates (raw schema JSON and its hash) and the last refresh of each collection.
public enum FacilitiesSchema {
    /// Registers the `facilities` namespace's migrations.
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(namespace: "facilities", "1-create") { db in
            try db.execute(
                """
                CREATE TABLE reference_facilities (
                    id INTEGER PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL DEFAULT '',
                    address TEXT,
                    project_id INTEGER,
                    project_name TEXT,
                    is_active INTEGER NOT NULL DEFAULT 1
                )
                """)
            try db.execute(
                """
                CREATE TABLE reference_areas (
                    id INTEGER PRIMARY KEY NOT NULL,
                    facility_id INTEGER NOT NULL REFERENCES reference_facilities(id) ON DELETE CASCADE,
                    name TEXT NOT NULL DEFAULT '',
                    area_type TEXT
                )
                """)
            try db.execute("CREATE INDEX reference_areas_facility ON reference_areas(facility_id)")
            try db.execute(
                """
                CREATE TABLE reference_templates (
                    id INTEGER PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL DEFAULT '',
                    description TEXT,
                    is_active INTEGER NOT NULL DEFAULT 1,
                    form_schema TEXT NOT NULL DEFAULT '[]',
                    schema_hash TEXT NOT NULL DEFAULT ''
                )
                """)
            try db.execute(
                """
                CREATE TABLE reference_refresh (
                    collection TEXT PRIMARY KEY NOT NULL,
                    last_attempt_at TEXT,
                    last_success_at TEXT,
                    last_error TEXT
                )
                """)
        }
        migrator.registerMigration(namespace: "facilities", "2-etag") { db in
            // The ETag of each cached list (issue 17), dropped with the refresh records whenever the cache is cleared.
            try db.execute("ALTER TABLE reference_refresh ADD COLUMN etag TEXT")
        }
        migrator.registerMigration(namespace: "facilities", "3-body-digest") { db in
            // The ContentDigest of the reply body each cached list was built from (issue 17): a byte-identical reply
            // is current without being decoded. Dropped with the refresh records, like the ETag.
            try db.execute("ALTER TABLE reference_refresh ADD COLUMN body_digest TEXT")
        }
    }
}

/// Reads and writes the reference tables. Every method returns values (rule 68); every multi-row change
/// is one transaction.
public final class ReferenceStore: Sendable {
    /// The store.
    public let queue: DatabaseQueue

    /// A store over `queue` (migrated with ``FacilitiesSchema``).
    public init(queue: DatabaseQueue) {
        self.queue = queue
    }

    // MARK: Reads

    /// Cached facilities by name (then id).
    /// - Parameters:
    ///   - activeOnly: only active ones (every picker: seed 001 §8.4).
    ///   - contractID: only this contract's, when given.
    /// - Throws: `DatabaseError`.
    public func facilities(activeOnly: Bool = true, contractID: Int? = nil) throws -> [Facility] {
        var sql = "SELECT * FROM reference_facilities WHERE 1 = 1"
        var arguments: StatementArguments = []
        if activeOnly { sql += " AND is_active = 1" }
        if let contractID {
            sql += " AND project_id = ?"
            arguments.append(contractID)
        }
        sql += " ORDER BY name, id"
        return try queue.read { db in try db.fetchAll(sql, arguments).map(Self.facility) }
    }

    /// One cached facility (active or not), or `nil`.
    /// - Throws: `DatabaseError`.
    public func facility(id: Int) throws -> Facility? {
        try queue.read { db in
            try db.fetchOne("SELECT * FROM reference_facilities WHERE id = ?", [id]).map(Self.facility)
        }
    }

    /// The cached areas of a facility, by name.
    /// - Throws: `DatabaseError`.
    public func areas(facilityID: Int) throws -> [Area] {
        try queue.read { db in
            try db.fetchAll("SELECT * FROM reference_areas WHERE facility_id = ? ORDER BY name, id", [facilityID])
                .map(Self.area)
        }
    }

    /// One cached area, or `nil`.
    /// - Throws: `DatabaseError`.
    public func area(id: Int) throws -> Area? {
        try queue.read { db in try db.fetchOne("SELECT * FROM reference_areas WHERE id = ?", [id]).map(Self.area) }
    }

    /// Cached templates by name; only active ones unless `activeOnly` is `false` (rule 55: filtered here,
    /// whatever the server sent).
    /// - Throws: `DatabaseError`.
    public func templates(activeOnly: Bool = true) throws -> [InspectionTemplate] {
        let sql =
            "SELECT * FROM reference_templates" + (activeOnly ? " WHERE is_active = 1" : "") + " ORDER BY name, id"
        return try queue.read { db in try db.fetchAll(sql).map(Self.template) }
    }

    /// One cached template (active or not), or `nil`.
    /// - Throws: `DatabaseError`.
    public func template(id: Int) throws -> InspectionTemplate? {
        try queue.read { db in
            try db.fetchOne("SELECT * FROM reference_templates WHERE id = ?", [id]).map(Self.template)
        }
    }

    /// The contracts: distinct `(project_id, project_name)` of the active facilities, by name.
    /// - Throws: `DatabaseError`.
    public func contracts() throws -> [Contract] {
        try queue.read { db in
            try db.fetchAll(
                """
                SELECT project_id, max(coalesce(project_name, '')) AS project_name FROM reference_facilities
                WHERE is_active = 1 AND project_id IS NOT NULL GROUP BY project_id ORDER BY 2, 1
                """
            ).map { Contract(id: $0["project_id"] ?? 0, name: $0["project_name"] ?? "") }
        }
    }

    /// The last refresh of a collection.
    /// - Throws: `DatabaseError`.
    public func refreshState(_ collection: ReferenceCollection) throws -> RefreshState {
        try queue.read { db in
            guard
                let row = try db.fetchOne("SELECT * FROM reference_refresh WHERE collection = ?", [collection.rawValue])
            else { return RefreshState() }
            return RefreshState(
                lastAttemptAt: row["last_attempt_at"], lastSuccessAt: row["last_success_at"],
                lastError: row["last_error"])
        }
    }

    // MARK: Writes

    /// Records a failed refresh of `collections` (the cache is left as it was).
    /// - Throws: `DatabaseError`.
    public func recordFailure(_ collections: [ReferenceCollection], at now: Date, error: String) throws {
        try queue.write { db in
            for collection in collections { try Self.record(db, collection, at: now, error: error) }
        }
    }

    /// Deletes every facility, area and template and the refresh records — nothing else (seed 001 §20,
    /// rule 19: inspections, issues and photos are never touched).
    /// - Throws: `DatabaseError`.
    public func clearCache() throws {
        try queue.write { db in
            try db.execute("DELETE FROM reference_areas")
            try db.execute("DELETE FROM reference_facilities")
            try db.execute("DELETE FROM reference_templates")
            try db.execute("DELETE FROM reference_refresh")
        }
    }

    /// Stores one template (tests and tools; a pull replaces it).
    /// - Throws: `DatabaseError`.
    public func upsertTemplateForTesting(_ template: InspectionTemplate) throws {
        try queue.write { db in
            try db.execute(
                """
                INSERT OR REPLACE INTO reference_templates (id, name, description, is_active, form_schema, schema_hash)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    template.id, template.name, template.description, template.isActive,
                    template.formSchema.jsonString(), template.schemaHash,
                ])
        }
    }

    private static func record(_ db: Database, _ collection: ReferenceCollection, at now: Date, error: String?) throws {
        if error == nil {
            try db.execute(
                """
                INSERT INTO reference_refresh (collection, last_attempt_at, last_success_at, last_error)
                VALUES (?, ?, ?, NULL)
                ON CONFLICT(collection) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
                    last_success_at = excluded.last_success_at, last_error = NULL
                """, [collection.rawValue, now, now])
        } else {
            try db.execute(
                """
                INSERT INTO reference_refresh (collection, last_attempt_at, last_error) VALUES (?, ?, ?)
                ON CONFLICT(collection) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
                    last_error = excluded.last_error
                """, [collection.rawValue, now, error])
        }
    }

    static func facility(_ row: Row) -> Facility {
        Facility(
            id: row["id"] ?? 0, name: row["name"] ?? "", address: row["address"], projectID: row["project_id"],
            projectName: row["project_name"], isActive: row["is_active"] ?? true)
    }

    static func area(_ row: Row) -> Area {
        Area(
            id: row["id"] ?? 0, facilityID: row["facility_id"] ?? 0, name: row["name"] ?? "", areaType: row["area_type"]
        )
    }

    private static func template(_ row: Row) -> InspectionTemplate {
        let text: String = row["form_schema"] ?? "[]"
        let schema = (try? JSONValue.parse(text)) ?? .array([])
        return InspectionTemplate(
            id: row["id"] ?? 0, name: row["name"] ?? "", description: row["description"],
            isActive: row["is_active"] ?? true, formSchema: schema,
            schemaHash: row["schema_hash"] ?? FormSchema(json: schema).hash)
    }
}
