import CSQLite
import Foundation
import JQCKit

/// The statement-parameter list: values bound to `?` placeholders in order.
public typealias StatementArguments = [any DatabaseValueConvertible]

/// An open SQLite connection, handed to the closures of ``DatabaseQueue`` (`read`, `write`). It is not
/// `Sendable`: use it only inside the closure it was given to.
///
/// Statements are prepared once and cached by SQL text; every use resets and clears the bindings
/// afterwards, whatever happened. Use ``transaction(_:_:)`` for atomic groups (nesting becomes savepoints).
public final class Database {
    /// The raw handle.
    let handle: OpaquePointer
    /// The file path (`:memory:` for in-memory stores).
    public let path: String
    /// Prepared statements by SQL text.
    private var statementCache: [String: PreparedStatement] = [:]
    /// The same statements by the address and length of the text's UTF-8 bytes (issue 17): a statement
    /// written as a literal is found again without hashing its text — one integer hash and a `memcmp` —
    /// where the text-keyed lookup cost about 2,000 instructions per statement. Each entry keeps its text
    /// (so the bytes at that address stay alive and the `memcmp` is against them); bounded, emptied when
    /// full (statements built at run time each have a fresh address).
    private var statementsByAddress: [Int: (sql: String, statement: PreparedStatement)] = [:]
    private static let addressCacheLimit = 256
    private var savepointDepth = 0

    /// Process-wide SQLite settings, made once before the first connection opens (issue 17): the allocation
    /// statistics off — a mutex taken on every SQLite allocation, about 30 per answered field.
    private static let processSettings: Void = { _ = jqc_sqlite3_config_memstatus_off() }()

    init(path: String, configuration: DatabaseConfiguration) throws {
        _ = Self.processSettings
        var connection: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= configuration.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let connection { sqlite3_close_v2(connection) }
            throw DatabaseError(resultCode: result, detail: "\(message) at \(path)")
        }
        handle = connection
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(configuration.busyTimeout * 1000))
        do {
            // Touch the header first so a file that is not a database fails here, with a sentence.
            _ = try scalar("SELECT count(*) FROM sqlite_master") as Int64?
            if !configuration.readOnly {
                if let pageSize = configuration.pageSize { try setPageSize(pageSize) }
                let mode = try scalar("PRAGMA journal_mode = WAL") as String?
                if mode?.lowercased() != "wal" && path != ":memory:" && !path.isEmpty {
                    throw DatabaseError(kind: .other, detail: "could not switch \(path) to WAL (got \(mode ?? "nil"))")
                }
            }
            try execute("PRAGMA foreign_keys = ON")
            try execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
            try executeOne("PRAGMA cache_size = -\(max(configuration.pageCacheKiB, 1))")
        } catch let error as DatabaseError {
            close()
            // Name the file, so the person knows which one to move aside or restore.
            throw error.naming(path)
        } catch {
            close()
            throw error
        }
    }

    /// Asks for `bytes`-byte pages (``DatabaseConfiguration/pageSize``); SQLite takes it only while the file has
    /// no table yet, before WAL is switched on, and silently keeps its own otherwise.
    /// - Throws: ``DatabaseError`` `misuse` when `bytes` is not a power of two from 512 to 65,536.
    private func setPageSize(_ bytes: Int) throws {
        guard (512...65_536).contains(bytes), bytes & (bytes - 1) == 0 else {
            throw DatabaseError(
                kind: .misuse, detail: "a page size is a power of two from 512 to 65536 bytes, not \(bytes)")
        }
        try executeOne("PRAGMA page_size = \(bytes)")
    }

    /// Finalises every cached statement and closes the connection.
    func close() {
        for statement in statementCache.values { sqlite3_finalize(statement.handle) }
        statementCache.removeAll()
        statementsByAddress.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: Statements

    /// Runs one statement (or, with no arguments, several separated by `;`).
    /// - Parameters:
    ///   - sql: the statement text with `?` placeholders.
    ///   - arguments: values for the placeholders, in order.
    /// - Throws: ``DatabaseError``.
    public func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
        // A byte scan: `String.contains(_:)` with a string goes through Foundation (~6,000 instructions for a
        // `BEGIN`; issue 17), and every transaction runs two of these.
        if arguments.isEmpty && sql.utf8.contains(UInt8(ascii: ";")) {
            var message: UnsafeMutablePointer<CChar>?
            let result = sqlite3_exec(handle, sql, nil, nil, &message)
            if result != SQLITE_OK {
                let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
                sqlite3_free(message)
                throw DatabaseError(
                    resultCode: sqlite3_extended_errcode(handle), detail: text, sql: sql,
                    systemErrno: sqlite3_system_errno(handle))
            }
            return
        }
        try withStatement(sql, arguments) { statement in
            while try step(statement.handle, sql: sql) {}
        }
    }

    /// Runs one statement with no arguments, without looking for a second one: the transaction's own
    /// statements (`BEGIN`, `COMMIT`, savepoints) and `PRAGMA`s, where ``execute(_:_:)``'s scan for `;` cost
    /// ~200 instructions a statement (issue 17: two per transaction).
    /// - Throws: ``DatabaseError``.
    func executeOne(_ sql: String) throws {
        try withStatement(sql, []) { statement in
            while try step(statement.handle, sql: sql) {}
        }
    }

    /// Every row the query returns.
    /// - Throws: ``DatabaseError``.
    public func fetchAll(_ sql: String, _ arguments: StatementArguments = []) throws -> [Row] {
        try withStatement(sql, arguments) { statement in
            var rows: [Row] = []
            while try step(statement.handle, sql: sql) {
                let columns = statement.columns
                rows.append(Row(columns: columns, values: values(statement.handle, count: columns.count)))
            }
            return rows
        }
    }

    /// The first row the query returns, or `nil` when it returns none.
    /// - Throws: ``DatabaseError``.
    public func fetchOne(_ sql: String, _ arguments: StatementArguments = []) throws -> Row? {
        try withStatement(sql, arguments) { statement in
            guard try step(statement.handle, sql: sql) else { return nil }
            let columns = statement.columns
            return Row(columns: columns, values: values(statement.handle, count: columns.count))
        }
    }

    /// The first column of the first row, converted to `T`; `nil` when there is no row or the value is null.
    /// - Throws: ``DatabaseError``.
    public func scalar<T: DatabaseValueConvertible>(_ sql: String, _ arguments: StatementArguments = []) throws -> T? {
        try withStatement(sql, arguments) { statement in
            guard try step(statement.handle, sql: sql) else { return nil }
            return T.fromDatabaseValue(value(statement.handle, 0))
        }
    }

    /// The values of the first row, in column order, or `nil` when the query returns none. For a hot path's
    /// read of a few values (issue 17: the answer path's draft read): no ``Row`` with its column names is
    /// built, and the function is not generic, so no type metadata is looked up at run time (callgrind: a
    /// generic two-column read spent ~3,500 instructions a call on `Optional` and tuple metadata).
    /// - Throws: ``DatabaseError``.
    public func firstRowValues(_ sql: String, _ arguments: StatementArguments = []) throws -> [DatabaseValue]? {
        try withStatement(sql, arguments) { statement in
            guard try step(statement.handle, sql: sql) else { return nil }
            return values(statement.handle, count: Int(sqlite3_column_count(statement.handle)))
        }
    }

    /// The WAL file's path as SQLite names it (`sqlite3_filename_wal`), or `nil` for an in-memory or temporary
    /// store.
    var walPath: String? {
        guard let name = sqlite3_db_filename(handle, "main"), name.pointee != 0 else { return nil }
        guard let wal = sqlite3_filename_wal(name) else { return nil }
        return String(cString: wal)
    }

    /// The rowid of the last successful `INSERT` on this connection.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    public var changesCount: Int { Int(sqlite3_changes(handle)) }

    /// Rows changed by every `INSERT`, `UPDATE` and `DELETE` since this connection opened (`sqlite3_total_changes`):
    /// the difference across a piece of work counts what it wrote (issue 17: an unchanged reply writes no row).
    public var totalChangesCount: Int { Int(sqlite3_total_changes(handle)) }

    /// Whether a transaction is open on this connection.
    public var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private func withStatement<T>(
        _ sql: String, _ arguments: StatementArguments, _ body: (PreparedStatement) throws -> T
    ) throws -> T {
        let statement = try prepared(sql)
        let handle = statement.handle
        defer {
            sqlite3_reset(handle)
            if !arguments.isEmpty { sqlite3_clear_bindings(handle) }
        }
        guard statement.parameterCount == arguments.count else {
            throw DatabaseError(
                kind: .misuse,
                detail: "the statement expects \(statement.parameterCount) arguments, got \(arguments.count): \(sql)")
        }
        for (index, argument) in arguments.enumerated() {
            try bind(argument.databaseValue, at: Int32(index + 1), handle, sql: sql)
        }
        return try body(statement)
    }

    /// The cached statement for `sql`, prepared on first use: found by the address of the text's bytes when it
    /// was seen at that address before (a literal), else by the text.
    private func prepared(_ sql: String) throws -> PreparedStatement {
        // Small strings (≤ 15 bytes) live inline, at no stable address: the text lookup hashes them cheaply.
        let address: Int? =
            sql.utf8.count > 15 ? sql.utf8.withContiguousStorageIfAvailable { Int(bitPattern: $0.baseAddress) } : nil
        if let address, let entry = statementsByAddress[address], Self.sameBytes(entry.sql, sql) {
            return entry.statement
        }
        let statement = try statementCache[sql] ?? prepare(sql)
        if let address {
            if statementsByAddress.count >= Self.addressCacheLimit {
                statementsByAddress.removeAll(keepingCapacity: true)
            }
            statementsByAddress[address] = (sql, statement)
        }
        return statement
    }

    /// Whether two texts hold the same UTF-8 bytes (one `memcmp`; no hashing, no normalisation).
    static func sameBytes(_ cached: String, _ sql: String) -> Bool {
        let count = sql.utf8.count
        guard cached.utf8.count == count else { return false }
        return cached.utf8.withContiguousStorageIfAvailable { left in
            sql.utf8.withContiguousStorageIfAvailable { right in
                guard let left = left.baseAddress, let right = right.baseAddress else { return count == 0 }
                return memcmp(left, right, count) == 0
            }
        } == true
    }

    /// Prepares `sql` (persistent) and caches it by its text.
    private func prepare(_ sql: String) throws -> PreparedStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw DatabaseError(
                resultCode: sqlite3_extended_errcode(handle), detail: String(cString: sqlite3_errmsg(handle)), sql: sql,
                systemErrno: sqlite3_system_errno(handle))
        }
        let prepared = PreparedStatement(handle: statement)
        statementCache[sql] = prepared
        return prepared
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func bind(_ value: DatabaseValue, at index: Int32, _ statement: OpaquePointer, sql: String) throws {
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(statement, index)
        case .integer(let int): result = sqlite3_bind_int64(statement, index, int)
        case .real(let double): result = sqlite3_bind_double(statement, index, double)
        case .text(let text):
            // The byte count, not -1: a string may hold NUL (a server string kept intact, issue 21).
            var text = text
            result = text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(statement, index, "", 0, Database.transient)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                    sqlite3_bind_text64(
                        statement, index, chars, UInt64(bytes.count), Database.transient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            result = data.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(
                    statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(buffer.count),
                    Database.transient)
            }
        }
        guard result == SQLITE_OK else {
            throw DatabaseError(resultCode: result, detail: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }

    private func step(_ statement: OpaquePointer, sql: String) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError(
                resultCode: sqlite3_extended_errcode(handle), detail: String(cString: sqlite3_errmsg(handle)), sql: sql,
                systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// The `count` column values of the current row, in order.
    private func values(_ statement: OpaquePointer, count: Int) -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        values.reserveCapacity(count)
        for index in 0..<Int32(count) { values.append(value(statement, index)) }
        return values
    }

    private func value(_ statement: OpaquePointer, _ index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            // Read by byte count (sqlite3_column_bytes after column_text), so an embedded NUL does not cut the text.
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    // MARK: Transactions

    /// How a top-level transaction begins.
    public enum TransactionKind: String, Sendable {
        /// Takes the write lock at once (waiting up to the busy timeout): use for anything that writes.
        case immediate = "IMMEDIATE"
        /// Takes locks as statements need them: use for reads.
        case deferred = "DEFERRED"
    }

    /// Runs `body` atomically: commits when it returns, rolls back when it throws. Inside another
    /// transaction it becomes a savepoint, so an inner failure undoes only the inner work (when the
    /// outer body catches it).
    /// - Parameters:
    ///   - kind: how a top-level transaction begins (ignored for savepoints).
    ///   - body: the work; its result is returned.
    /// - Throws: what `body` throws (after rolling back), or ``DatabaseError``.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: (Database) throws -> T) throws -> T {
        let nested = isInsideTransaction
        // Literals for a top-level transaction (issue 17): found in the statement cache by address, no text
        // built or hashed; a savepoint's name only when nested.
        let savepoint = nested ? "jqc_sp_\(savepointDepth)" : ""
        if nested {
            try executeOne("SAVEPOINT \(savepoint)")
        } else {
            switch kind {
            case .immediate: try executeOne("BEGIN IMMEDIATE TRANSACTION")
            case .deferred: try executeOne("BEGIN DEFERRED TRANSACTION")
            }
        }
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        do {
            let result = try body(self)
            if nested {
                try executeOne("RELEASE SAVEPOINT \(savepoint)")
            } else {
                try executeOne("COMMIT TRANSACTION")
            }
            return result
        } catch {
            if nested {
                try? executeOne("ROLLBACK TRANSACTION TO SAVEPOINT \(savepoint)")
                try? executeOne("RELEASE SAVEPOINT \(savepoint)")
            } else if isInsideTransaction {
                try? executeOne("ROLLBACK TRANSACTION")
            }
            throw error
        }
    }
}

/// One prepared statement of a connection's cache, with what every use of it asks: its parameter count and
/// its column names (read at prepare and again only after SQLite re-prepared it for a schema change, and
/// shared by every ``Row`` it returns).
final class PreparedStatement {
    /// The SQLite statement handle (finalised when the connection closes).
    let handle: OpaquePointer
    /// The `?` placeholders it expects.
    let parameterCount: Int
    private var columnNames: [String]
    private var reprepares: Int32

    init(handle: OpaquePointer) {
        self.handle = handle
        parameterCount = Int(sqlite3_bind_parameter_count(handle))
        columnNames = Self.names(handle)
        reprepares = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
    }

    /// Its result columns' names, in order, as of its last step (a `SELECT *` re-prepared after an
    /// `ALTER TABLE` has new ones).
    var columns: [String] {
        let current = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        if current != reprepares {
            reprepares = current
            columnNames = Self.names(handle)
        }
        return columnNames
    }

    private static func names(_ handle: OpaquePointer) -> [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }
}
