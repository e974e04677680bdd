import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file writes that are all-or-nothing: a temporary file beside the target, written, fsynced,
/// then renamed over the target and the directory fsynced. A crash leaves the old file or the new
/// one, never a torn one. Used for credentials, session state and photo output (issue 4, issue 8).
public enum AtomicFile {
    /// A write that failed, with the OS reason as a sentence (JQCKit's error shape, STYLE.md item 14).
    public struct WriteError: CodedError {
        /// Why the write failed: `kit.disk_full`, `kit.permission_denied`, `kit.write_failed`.
        public enum Kind: String, CodedErrorKind {
            /// `ENOSPC`: the disk is full.
            case diskFull = "disk_full"
            /// `EACCES`, `EROFS`, `EPERM`: the file or its folder may not be written.
            case permissionDenied = "permission_denied"
            /// Any other OS failure.
            case writeFailed = "write_failed"
            /// The codes' module part, `kit`.
            public static var module: String { "kit" }
        }

        /// The file that could not be written.
        public let path: String
        /// `errno` at the failure.
        public let systemErrno: Int32

        /// A write of `path` that failed with `errno` `systemErrno` (`ENOSPC`, `EACCES`, …).
        public init(path: String, systemErrno: Int32) {
            self.path = path
            self.systemErrno = systemErrno
        }

        /// The kind, from ``systemErrno``.
        public var kind: Kind {
            switch systemErrno {
            case ENOSPC: .diskFull
            case EACCES, EROFS, EPERM: .permissionDenied
            default: .writeFailed
            }
        }

        /// `kit.<kind>`.
        public var code: String { kind.code }

        /// The sentence, naming the file and the OS reason.
        public var message: String {
            let reason = String(cString: strerror(systemErrno))
            if kind == .diskFull { return "Could not save \(path): the disk is full. Free some space and try again." }
            if kind == .permissionDenied {
                return "Could not save \(path): permission denied (\(reason)). Check the data directory's permissions."
            }
            return "Could not save \(path): \(reason)."
        }
    }

    /// Writes `data` to `url` atomically.
    /// - Parameters:
    ///   - data: the complete new contents.
    ///   - url: the target file; its directory must exist.
    ///   - permissions: the file's mode, e.g. `0o600` for secrets.
    /// - Throws: ``WriteError`` (disk full, permission denied, …); the target is then unchanged.
    public static func write(_ data: Data, to url: URL, permissions: mode_t = 0o600) throws {
        let path = url.path
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw WriteError(path: path, systemErrno: errno) }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, fchmod(fd, permissions) != 0 { failure = errno }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw WriteError(path: path, systemErrno: failure)
        }
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
