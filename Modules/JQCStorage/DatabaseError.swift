import CSQLite
import Foundation
import JQCKit

#if canImport(Glibc)
    import Glibc
#endif

/// A failure of the local store, with SQLite's primary and extended result codes and a sentence a
/// person can act on (issue 2, "Bad input": disk full, read-only, corrupt file, busy).
public struct DatabaseError: CodedError, Equatable {
    /// What kind of failure this is, derived from SQLite's primary result code (or the storage layer's own).
    public enum Kind: String, CodedErrorKind {
        /// `SQLITE_FULL`: the disk (or the store's page limit) is full.
        case diskFull = "disk_full"
        /// `SQLITE_READONLY` / `SQLITE_PERM` / `SQLITE_CANTOPEN` on write: the file or folder cannot be written.
        case readOnly = "read_only"
        /// `SQLITE_CORRUPT` / `SQLITE_NOTADB`: the file is not a healthy SQLite database.
        case corrupt
        /// `SQLITE_BUSY` / `SQLITE_LOCKED`: another process held the store for longer than the busy timeout.
        case busy
        /// `SQLITE_CANTOPEN`: the file or its folder cannot be opened.
        case cannotOpen = "cannot_open"
        /// `SQLITE_CONSTRAINT`: a unique, foreign-key, not-null or check constraint refused the change.
        case constraint
        /// The store was written by a newer build (it has migrations this build does not know).
        case newerSchema = "newer_schema"
        /// `SQLITE_IOERR`: a read or write of the file failed (a full or failing disk, a removed volume).
        case ioError = "io_error"
        /// A migration failed; the store was left as it was before any migration of this run.
        case migrationFailed = "migration_failed"
        /// Misuse of the API (e.g. a write inside `read`).
        case misuse
        /// Any other SQLite error.
        case other
        /// The codes' module part, `storage`.
        public static var module: String { "storage" }
    }

    /// The failure's kind.
    public let kind: Kind
    /// SQLite's primary result code (`resultCode & 0xff`), or 0 for the storage layer's own errors.
    public let resultCode: Int32
    /// SQLite's extended result code, or 0.
    public let extendedResultCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`) or the storage layer's detail.
    public internal(set) var detail: String
    /// The statement that failed, when there was one.
    public let sql: String?

    /// An error for a SQLite result code; `systemErrno` (from `sqlite3_system_errno`) turns a failed write on a
    /// full disk (ENOSPC, EFBIG, EDQUOT), which SQLite may report as an I/O error, into ``Kind/diskFull``.
    public init(
        resultCode: Int32, extendedResultCode: Int32? = nil, detail: String, sql: String? = nil,
        systemErrno: Int32
    ) {
        let osReason = systemErrno != 0 ? ": " + String(cString: strerror(systemErrno)) : ""
        let detail = resultCode & 0xff == SQLITE_IOERR ? detail + osReason : detail
        self.init(resultCode: resultCode, extendedResultCode: extendedResultCode, detail: detail, sql: sql)
        if resultCode & 0xff == SQLITE_IOERR, [ENOSPC, EFBIG, EDQUOT].contains(systemErrno) {
            self = DatabaseError(
                resultCode: SQLITE_FULL, extendedResultCode: extendedResultCode ?? resultCode,
                detail: detail, sql: sql)
        }
    }

    /// An error for a SQLite result code (primary or extended; ``kind`` comes from the primary `resultCode & 0xff`,
    /// ``extendedResultCode`` is `extendedResultCode ?? resultCode`).
    public init(resultCode: Int32, extendedResultCode: Int32? = nil, detail: String, sql: String? = nil) {
        self.resultCode = resultCode & 0xff
        self.extendedResultCode = extendedResultCode ?? resultCode
        self.detail = detail
        self.sql = sql
        switch resultCode & 0xff {
        case SQLITE_FULL: kind = .diskFull
        case SQLITE_READONLY, SQLITE_PERM: kind = .readOnly
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
        case SQLITE_CANTOPEN: kind = .cannotOpen
        case SQLITE_CONSTRAINT: kind = .constraint
        case SQLITE_IOERR: kind = .ioError
        case SQLITE_MISUSE: kind = .misuse
        default: kind = .other
        }
    }

    /// An error of the storage layer itself (no SQLite code).
    public init(kind: Kind, detail: String) {
        self.kind = kind
        self.resultCode = 0
        self.extendedResultCode = 0
        self.detail = detail
        self.sql = nil
    }

    /// A stable code for scripts and logs (`storage.disk_full`, …).
    public var code: String { kind.code }

    /// What went wrong and what to do, as a sentence. Nothing was changed by the failed operation.
    public var message: String {
        switch kind {
        case .diskFull:
            return "The local store could not be saved because the disk is full; nothing was changed. "
                + "Free some space and try again."
        case .readOnly:
            return "The local store is read-only (\(detail)); nothing was changed. "
                + "Check the permissions of the data directory."
        case .corrupt:
            return "The local store file is damaged or is not a jqc database (\(detail)). "
                + "Move it aside and start again, or restore it from a backup; unsynced work in it cannot be read."
        case .busy:
            return "The local store is busy: another jqc process is writing to it (\(detail)). "
                + "Wait for it to finish and try again."
        case .cannotOpen:
            return
                "The local store could not be opened (\(detail)). Check that the data directory exists and is writable."
        case .constraint:
            return "The change was refused by the local store (\(detail)); nothing was changed."
        case .ioError:
            return "The local store could not be written (\(detail)); nothing was changed. The disk may be full or "
                + "failing: free some space and try again."
        case .newerSchema, .migrationFailed:
            return detail
        case .misuse, .other:
            return "The local store failed: \(detail) (SQLite code \(extendedResultCode))."
        }
    }
}

extension DatabaseError {
    /// The same error with the store's file path added to its detail (so a person knows which file).
    func naming(_ path: String) -> DatabaseError {
        guard kind != .newerSchema, kind != .migrationFailed else { return self }
        var copy = self
        copy.detail = "\(detail): \(path)"
        return copy
    }
}
