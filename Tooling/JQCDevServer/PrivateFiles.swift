import Foundation

/// Files and folders only their owner can read (issue 19): the data directory holds the JWT signing
/// secret (`server.sqlite`), so every folder the server makes is 0700 and every file 0600, whatever the
/// umask — each mode is set explicitly with `chmod`/`fchmod`, never left to the umask.
enum PrivateFiles {
    /// The mode of every folder the server creates.
    static let folderMode: mode_t = 0o700
    /// The mode of every file the server creates.
    static let fileMode: mode_t = 0o600

    /// Prepares the data directory: creates it (and missing parents) 0700, or checks an existing one.
    /// An existing directory must be owned by this user and not writable by group or others; one that
    /// others can read is tightened to 0700.
    /// - Throws: ``DevServerError`` `unsafeDataDirectory` (others can write it, another user owns it, it is
    ///   not a folder) or `storage` (it cannot be created).
    static func prepareDataDirectory(_ url: URL) throws {
        let path = url.path
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else {
                throw DevServerError(
                    .storage, "The data directory \(path) cannot be read (\(reason(errno))); check its permissions.")
            }
            try createFolder(url)
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw DevServerError(
                .unsafeDataDirectory, "The data directory \(path) is not a folder; give --data-dir a folder.")
        }
        guard info.st_uid == geteuid() else {
            throw DevServerError(
                .unsafeDataDirectory,
                "The data directory \(path) belongs to another user (uid \(info.st_uid)); "
                    + "use a folder of your own with --data-dir.")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o022 == 0 else {
            throw DevServerError(
                .unsafeDataDirectory,
                "The data directory \(path) can be written by other users (mode \(octal(mode))), who could read "
                    + "or replace the server's signing secret; run 'chmod 700 \(path)' or choose another --data-dir.")
        }
        if mode & 0o077 != 0, chmod(path, folderMode) != 0 {
            throw DevServerError(
                .storage, "The data directory \(path) could not be made private (\(reason(errno))).")
        }
    }

    /// Creates `url` and any missing parent folders, each 0700 (an existing folder is left as it is).
    /// - Throws: ``DevServerError`` `storage` when a folder cannot be created.
    static func createFolder(_ url: URL) throws {
        let path = url.standardizedFileURL.path
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw DevServerError(.storage, "\(path) exists and is not a folder; move it aside.")
            }
            return
        }
        let parent = url.standardizedFileURL.deletingLastPathComponent()
        if parent.path != path { try createFolder(parent) }
        guard mkdir(path, folderMode) == 0 || errno == EEXIST else {
            throw DevServerError(.storage, "The folder \(path) could not be created (\(reason(errno))).")
        }
        guard chmod(path, folderMode) == 0 else {
            throw DevServerError(.storage, "The folder \(path) could not be made private (\(reason(errno))).")
        }
    }

    /// Creates `url` empty with mode 0600 when it is missing; an existing file of this user is set to 0600.
    /// Used before SQLite opens its store (SQLite gives `-wal` and `-shm` the database file's mode) and
    /// before the log is opened.
    /// - Throws: ``DevServerError`` `storage` when the file cannot be created or its mode set.
    static func prepareFile(_ url: URL) throws {
        let path = url.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard descriptor >= 0 else {
            throw DevServerError(.storage, "The file \(path) could not be opened (\(reason(errno))).")
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, fileMode) == 0 else {
            throw DevServerError(.storage, "The file \(path) could not be made private (\(reason(errno))).")
        }
    }

    /// Sets an existing file of this user to 0600 (a missing file is fine).
    static func tighten(_ url: URL) {
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            info.st_mode & 0o077 != 0
        else { return }
        chmod(url.path, fileMode)
    }

    /// A new, empty file at `url`, mode 0600, open for writing (upload part files).
    /// - Returns: the handle, or `nil` when the file cannot be created.
    static func createForWriting(_ url: URL) -> FileHandle? {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard descriptor >= 0 else { return nil }
        guard fchmod(descriptor, fileMode) == 0 else {
            close(descriptor)
            return nil
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// `mode` as `0755`.
    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
