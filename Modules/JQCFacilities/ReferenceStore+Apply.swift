import Foundation
import JQCForms
import JQCKit
import JQCStorage

/// One collection of a reference pull as the server answered it (issue 17, 21): the items that could be read, the
/// ids the reply proves present (readable ids of unreadable items too), and the `ETag` to store with the cache.
public struct ReferencePart<Item: Sendable & Hashable>: Sendable, Hashable {
    /// The items that decoded.
    public var items: [Item]
    /// Every id the reply holds, readable items or not.
    public var presentIDs: Set<Int>
    /// Whether every item's id was readable; when `false` the reply proves nothing absent and nothing is pruned.
    public var everyIDReadable: Bool
    /// The reply's `ETag`, stored with the applied rows (only for a reply with no unreadable item), or `nil`.
    public var etag: String?
    /// The ``/JQCKit/ContentDigest`` of the reply body, stored like ``etag``: a later reply with the same digest is
    /// current without being decoded (``/JQCNetwork/ListReply/sameBody(etag:)``), or `nil`.
    public var digest: String?

    /// A part.
    public init(
        items: [Item], presentIDs: Set<Int>, everyIDReadable: Bool = true, etag: String? = nil, digest: String? = nil
    ) {
        self.items = items
        self.presentIDs = presentIDs
        self.everyIDReadable = everyIDReadable
        self.etag = etag
        self.digest = digest
    }

    /// Whether the reply proves `id` gone from the server.
    public func provesAbsent(_ id: Int) -> Bool { everyIDReadable && !presentIDs.contains(id) }
}

/// A reference pull: each collection fresh, or `nil` when the server answered `304 Not Modified` (its cache is
/// current and is left untouched; it still counts as a successful refresh for the prune rules).
public struct ReferencePull: Sendable, Hashable {
    /// Facilities (deduplicated by id, the first occurrence winning: rule 45), or `nil` when unchanged.
    public var facilities: ReferencePart<Facility>?
    /// Areas, or `nil` when unchanged.
    public var areas: ReferencePart<Area>?
    /// Templates, or `nil` when unchanged.
    public var templates: ReferencePart<InspectionTemplate>?
    /// For an unchanged collection whose byte-identical reply (``/JQCNetwork/ListReply/sameBody(etag:)``) carried a
    /// new `ETag`: that tag, stored with the cache so the next pull can be conditional.
    public var sameBodyETags: [ReferenceCollection: String] = [:]

    /// A pull; `facilities` is deduplicated by id here (rule 45).
    public init(
        facilities: ReferencePart<Facility>?, areas: ReferencePart<Area>?, templates: ReferencePart<InspectionTemplate>?
    ) {
        if var part = facilities {
            var seen = Set<Int>()
            part.items = part.items.filter { seen.insert($0.id).inserted }
            self.facilities = part
        } else {
            self.facilities = nil
        }
        self.areas = areas
        self.templates = templates
    }

    /// Every collection fresh and fully readable, without ETags (tests, tools).
    public init(_ reply: ReferenceReply) {
        self.init(
            facilities: ReferencePart(items: reply.facilities, presentIDs: Set(reply.facilities.map(\.id))),
            areas: ReferencePart(items: reply.areas, presentIDs: Set(reply.areas.map(\.id))),
            templates: ReferencePart(items: reply.templates, presentIDs: Set(reply.templates.map(\.id))))
    }
}

extension ReferenceStore {
    /// Applies one pull in one transaction (seed 001 §8 step 4) — see ``apply(_:now:referencedFacilityIDs:)-(ReferencePull,_,_)``.
    /// - Throws: `DatabaseError` (nothing is changed).
    @discardableResult
    public func apply(
        _ reply: ReferenceReply, now: Date, referencedFacilityIDs: (Database) throws -> Set<Int>
    ) throws -> ReferenceApplyResult {
        try apply(ReferencePull(reply), now: now, referencedFacilityIDs: referencedFacilityIDs)
    }

    /// Applies one pull in one transaction, writing only what changed (issue 17 "diff-apply"): each fresh item is
    /// compared with its stored row and written only when it differs; facilities the reply proves gone are pruned
    /// — kept as inactive while unsynced local work references them (§8.4); areas are related to their facility
    /// (rule 57) and pruned; templates pruned (rule 56). An unchanged collection (`nil`, a 304) is left as it is.
    /// Every collection's refresh is recorded as a success, with the ETag and body digest of each fresh one (dropped
    /// when the part carried none, and for facilities when one was kept inactive for local work — so the next pull
    /// reads that list in full and prunes it once the work is gone). Areas skipped for want of their facility need
    /// no such rule: after any facilities change the stage reads areas unconditionally.
    /// - Parameters:
    ///   - pull: the three answers (called only after all three requests succeeded).
    ///   - now: the refresh time.
    ///   - referencedFacilityIDs: the facility ids unsynced local work references, read in the same transaction.
    /// - Returns: what was pruned, kept and skipped, and ``ReferenceApplyResult/rowsWritten``.
    /// - Throws: `DatabaseError` (nothing is changed).
    @discardableResult
    public func apply(
        _ pull: ReferencePull, now: Date, referencedFacilityIDs: (Database) throws -> Set<Int>
    ) throws -> ReferenceApplyResult {
        try queue.write { db in
            var result = ReferenceApplyResult(
                prunedFacilities: [], retainedInactive: [], prunedTemplates: [], skippedAreas: [])
            if let part = pull.facilities { try applyFacilities(db, part, referencedFacilityIDs, into: &result) }
            if let part = pull.areas { try applyAreas(db, part, into: &result) }
            if let part = pull.templates { try applyTemplates(db, part, into: &result) }
            for collection in ReferenceCollection.allCases {
                let condition: (etag: String?, digest: String?)?
                switch collection {
                case .facilities:
                    condition = pull.facilities.map {
                        result.retainedInactive.isEmpty ? ($0.etag, $0.digest) : (nil, nil)
                    }
                case .areas:
                    condition = pull.areas.map { ($0.etag, $0.digest) }
                case .templates: condition = pull.templates.map { ($0.etag, $0.digest) }
                }
                try Self.recordSuccess(db, collection, at: now, condition: condition)
                if condition == nil, let etag = pull.sameBodyETags[collection] {
                    try db.execute(
                        "UPDATE reference_refresh SET etag = ? WHERE collection = ?", [etag, collection.rawValue])
                }
            }
            return result
        }
    }

    private func applyFacilities(
        _ db: Database, _ part: ReferencePart<Facility>, _ referencedFacilityIDs: (Database) throws -> Set<Int>,
        into result: inout ReferenceApplyResult
    ) throws {
        let stored = Dictionary(
            try db.fetchAll("SELECT * FROM reference_facilities").map { (Self.facility($0).id, Self.facility($0)) },
            uniquingKeysWith: { first, _ in first })
        for facility in part.items where stored[facility.id] != facility {
            try db.execute(
                """
                INSERT INTO reference_facilities (id, name, address, project_id, project_name, is_active)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, address = excluded.address,
                    project_id = excluded.project_id, project_name = excluded.project_name,
                    is_active = excluded.is_active
                """,
                [
                    facility.id, facility.name, facility.address, facility.projectID, facility.projectName,
                    facility.isActive,
                ])
            result.rowsWritten += db.changesCount
        }
        let gone = stored.keys.sorted().filter { part.provesAbsent($0) }
        guard !gone.isEmpty else { return }
        let referenced = try referencedFacilityIDs(db)
        for id in gone {
            if referenced.contains(id) {
                if stored[id]?.isActive != false {
                    try db.execute("UPDATE reference_facilities SET is_active = 0 WHERE id = ?", [id])
                    result.rowsWritten += db.changesCount
                }
                result.retainedInactive.append(id)
            } else {
                try db.execute("DELETE FROM reference_facilities WHERE id = ?", [id])
                result.rowsWritten += db.changesCount
                result.prunedFacilities.append(id)
            }
        }
    }

    private func applyAreas(_ db: Database, _ part: ReferencePart<Area>, into result: inout ReferenceApplyResult) throws
    {
        let known = Set(try db.fetchAll("SELECT id FROM reference_facilities").compactMap { $0["id"] as Int? })
        let stored = Dictionary(
            try db.fetchAll("SELECT * FROM reference_areas").map { (Self.area($0).id, Self.area($0)) },
            uniquingKeysWith: { first, _ in first })
        var unplaced = Set<Int>()
        for area in part.items {
            guard known.contains(area.facilityID) else {
                result.skippedAreas.append(area.id)
                unplaced.insert(area.id)
                continue
            }
            guard stored[area.id] != area else { continue }
            try db.execute(
                """
                INSERT INTO reference_areas (id, facility_id, name, area_type) VALUES (?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET facility_id = excluded.facility_id, name = excluded.name,
                    area_type = excluded.area_type
                """, [area.id, area.facilityID, area.name, area.areaType])
            result.rowsWritten += db.changesCount
        }
        // An area whose facility is not cached is never kept (rule 57); one the reply proves gone is pruned.
        for id in stored.keys.sorted() where unplaced.contains(id) || part.provesAbsent(id) {
            try db.execute("DELETE FROM reference_areas WHERE id = ?", [id])
            result.rowsWritten += db.changesCount
        }
    }

    private func applyTemplates(
        _ db: Database, _ part: ReferencePart<InspectionTemplate>, into result: inout ReferenceApplyResult
    ) throws {
        // Compared by name, description, activity and schema hash: the stored schema is never re-parsed.
        var stored: [Int: (String, String?, Bool, String)] = [:]
        for row in try db.fetchAll("SELECT id, name, description, is_active, schema_hash FROM reference_templates") {
            guard let id: Int = row["id"] else { continue }
            stored[id] = (row["name"] ?? "", row["description"], row["is_active"] ?? true, row["schema_hash"] ?? "")
        }
        for template in part.items {
            if let row = stored[template.id], row.0 == template.name, row.1 == template.description,
                row.2 == template.isActive, row.3 == template.schemaHash
            {
                continue
            }
            try db.execute(
                """
                INSERT INTO reference_templates (id, name, description, is_active, form_schema, schema_hash)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, description = excluded.description,
                    is_active = excluded.is_active, form_schema = excluded.form_schema,
                    schema_hash = excluded.schema_hash
                """,
                [
                    template.id, template.name, template.description, template.isActive,
                    template.formSchema.jsonString(), template.schemaHash,
                ])
            result.rowsWritten += db.changesCount
        }
        for id in stored.keys.sorted() where part.provesAbsent(id) {
            try db.execute("DELETE FROM reference_templates WHERE id = ?", [id])
            result.rowsWritten += db.changesCount
            result.prunedTemplates.append(id)
        }
    }

    /// The stored ETag and body digest of each collection that has either (only for a cache a pull filled; both are
    /// cleared with it, so neither ever stands for an empty cache).
    /// - Throws: `DatabaseError`.
    public func conditions() throws -> [ReferenceCollection: (etag: String?, digest: String?)] {
        try queue.read { db in
            var found: [ReferenceCollection: (etag: String?, digest: String?)] = [:]
            for row in try db.fetchAll(
                """
                SELECT collection, etag, body_digest FROM reference_refresh
                WHERE etag IS NOT NULL OR body_digest IS NOT NULL
                """
            ) {
                if let name: String = row["collection"], let collection = ReferenceCollection(rawValue: name) {
                    found[collection] = (row["etag"], row["body_digest"])
                }
            }
            return found
        }
    }

    /// The stored ETag of each collection (only for a cache a pull filled; cleared with it).
    /// - Throws: `DatabaseError`.
    public func etags() throws -> [ReferenceCollection: String] {
        try queue.read { db in
            var etags: [ReferenceCollection: String] = [:]
            for row in try db.fetchAll("SELECT collection, etag FROM reference_refresh WHERE etag IS NOT NULL") {
                if let name: String = row["collection"], let collection = ReferenceCollection(rawValue: name),
                    let etag: String = row["etag"]
                {
                    etags[collection] = etag
                }
            }
            return etags
        }
    }

    /// Records a successful refresh; `condition` `nil` keeps the stored ETag and digest (the collection was
    /// unchanged), a value replaces both (a `nil` member drops it).
    private static func recordSuccess(
        _ db: Database, _ collection: ReferenceCollection, at now: Date, condition: (etag: String?, digest: String?)?
    ) throws {
        try db.execute(
            """
            INSERT INTO reference_refresh (collection, last_attempt_at, last_success_at, last_error)
            VALUES (?, ?, ?, NULL)
            ON CONFLICT(collection) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
                last_success_at = excluded.last_success_at, last_error = NULL
            """, [collection.rawValue, now, now])
        if let condition {
            try db.execute(
                "UPDATE reference_refresh SET etag = ?, body_digest = ? WHERE collection = ?",
                [condition.etag, condition.digest, collection.rawValue])
        }
    }
}
