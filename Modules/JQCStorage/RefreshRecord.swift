/// The outcome of a feature's last pull, for its read surface's `LoadPhase` and stale note: one row
/// (`id = 1`) of the feature's own state table, with the columns `refreshed INTEGER` (a pull was
/// attempted) and `last_error TEXT` (its failure sentence, `NULL` after a success). Shared so every
/// feature records and reads it the same way.
public enum RefreshRecord {
    /// Records how the last pull ended, in the caller's transaction.
    /// - Parameters:
    ///   - db: the caller's transaction.
    ///   - table: the feature's state table (a plain identifier, e.g. `scheduling_state`).
    ///   - error: the failure sentence, or `nil` on success.
    /// - Throws: ``DatabaseError``.
    public static func record(_ db: Database, table: String, error: String?) throws {
        try db.execute(
            """
            INSERT INTO \(identifier(table)) (id, refreshed, last_error) VALUES (1, 1, ?)
            ON CONFLICT(id) DO UPDATE SET refreshed = 1, last_error = excluded.last_error
            """, [error])
    }

    /// Whether a pull was ever attempted, and the last pull's failure sentence.
    /// - Throws: ``DatabaseError``.
    public static func state(_ db: Database, table: String) throws -> (attempted: Bool, lastError: String?) {
        guard let row = try db.fetchOne("SELECT refreshed, last_error FROM \(identifier(table)) WHERE id = 1") else {
            return (false, nil)
        }
        return (row["refreshed"] ?? false, row["last_error"])
    }

    /// `table` when it is a plain lower-case identifier; table names come from code, never from input.
    private static func identifier(_ table: String) -> String {
        precondition(
            !table.isEmpty && table.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLowercase || $0.isNumber)) },
            "not a table name: \(table)")
        return table
    }
}
