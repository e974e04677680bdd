import Foundation
import JQCStorage

/// Test-only SQL: a trigger that makes the store refuse every `UPDATE` of one column with "the store is full"
/// (what a failed commit, or a kill before it, leaves behind), and its removal.
enum RefusedWritesStore {
    /// Installs the refusing trigger on `table.column`.
    static func refuseUpdates(of column: String, on table: String, in queue: DatabaseQueue) throws {
        try queue.write { db in
            try db.execute(
                "CREATE TRIGGER refuse_\(table)_\(column) BEFORE UPDATE OF \(column) ON \(table) "
                    + "BEGIN SELECT RAISE(ABORT, 'the store is full'); END")
        }
    }

    /// Removes it.
    static func allowUpdates(of column: String, on table: String, in queue: DatabaseQueue) throws {
        try queue.write { db in try db.execute("DROP TRIGGER refuse_\(table)_\(column)") }
    }
}
