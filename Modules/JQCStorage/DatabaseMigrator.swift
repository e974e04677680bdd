import Foundation
import JQCKit

/// Versioned, namespaced schema migrations: each feature module registers its own ordered list
/// (`inspections/1-create`, `issues/1-create`, …) and the composition root applies them all at launch.
///
/// Rules (issue 2; seed 001 rule 8's lesson):
/// - a migration never changes once shipped; add a new one instead. New columns carry defaults, so an
///   older store always migrates;
/// - every pending migration of a run is applied in one transaction: a failure half-way leaves the store
///   exactly as it was, and the error says which migration failed;
/// - a store that has applied migrations this build does not know was written by a newer build: opening
///   it is refused with a sentence, never "repaired".
public struct DatabaseMigrator: Sendable {
    /// One registered migration.
    public struct Migration: Sendable {
        /// The owning feature (`inspections`, `issues`, …).
        public let namespace: String
        /// The migration's name within its namespace, unique and never renamed.
        public let identifier: String
        /// The schema change.
        public let migrate: @Sendable (Database) throws -> Void

        /// `namespace/identifier`, as recorded in the store.
        public var key: String { "\(namespace)/\(identifier)" }
    }

    private(set) var migrations: [Migration] = []

    /// An empty migrator.
    public init() {}

    /// Appends a migration; migrations run in registration order.
    /// - Parameters:
    ///   - namespace: the feature's name.
    ///   - identifier: unique within the namespace; never rename one that shipped.
    ///   - migrate: the schema change (`CREATE TABLE`, `ALTER TABLE … ADD COLUMN … DEFAULT …`).
    public mutating func registerMigration(
        namespace: String, _ identifier: String,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) {
        precondition(
            !migrations.contains { $0.namespace == namespace && $0.identifier == identifier },
            "migration \(namespace)/\(identifier) registered twice")
        migrations.append(Migration(namespace: namespace, identifier: identifier, migrate: migrate))
    }

    /// Every registered migration's key, in order.
    public var registeredKeys: [String] { migrations.map(\.key) }

    /// Applies every migration the store has not applied yet.
    /// - Returns: the keys applied by this call, in order.
    /// - Throws: ``DatabaseError`` of kind `newerSchema` (unknown applied migrations), `migrationFailed`
    ///   (naming the migration and the cause; nothing of this run is kept), or the store's own errors.
    @discardableResult
    public func migrate(_ store: DatabaseQueue) throws -> [String] {
        try store.write { db in
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS jqc_migrations (
                    key TEXT PRIMARY KEY NOT NULL,
                    applied_at TEXT NOT NULL
                )
                """)
            let applied = Set(try db.fetchAll("SELECT key FROM jqc_migrations").compactMap { $0["key"] as String? })
            let known = Set(registeredKeys)
            let unknown = applied.subtracting(known).sorted()
            if !unknown.isEmpty {
                throw DatabaseError(
                    kind: .newerSchema,
                    detail:
                        "This data directory was written by a newer version of jqc (it has the change "
                        + "\(unknown.map { "'\($0)'" }.joined(separator: ", ")) that this version does not know). "
                        + "Update jqc, or use another data directory; nothing was changed.")
            }
            var appliedNow: [String] = []
            for migration in migrations where !applied.contains(migration.key) {
                do {
                    try migration.migrate(db)
                    try db.execute(
                        "INSERT INTO jqc_migrations (key, applied_at) VALUES (?, ?)", [migration.key, Date()])
                } catch let error as DatabaseError
                    where error.kind == .diskFull || error.kind == .busy || error.kind == .readOnly
                {
                    throw error
                } catch {
                    throw DatabaseError(
                        kind: .migrationFailed,
                        detail:
                            "Updating the local store failed at '\(migration.key)' (\(error)); the store was left as it was."
                    )
                }
                appliedNow.append(migration.key)
            }
            return appliedNow
        }
    }
}
