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
    /// A write that failed, with the OS reason as a sentence.
    public struct WriteError: Error, CustomStringConvertible, Sendable {
        /// The file that could not be written.
        public let path: String
        /// `errno` at the failure.
        public let code: Int32

        /// A write of `path` that failed with `errno` `code` (`ENOSPC`, `EACCES`, …).
        public init(path: String, code: Int32) {
            self.path = path
            self.code = code
        }

        public var description: String {
            let reason = String(cString: strerror(code))
            if code == ENOSPC { return "Could not save \(path): the disk is full. Free some space and try again." }
            if code == EACCES || code == EROFS || code == EPERM {
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
        guard fd >= 0 else { throw WriteError(path: path, code: errno) }
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
            throw WriteError(path: path, code: failure)
        }
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
