import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `answer FIELD --edit` (issue 14): the answer's text in the inspector's own editor, as git does it —
/// `$VISUAL`, else `$EDITOR`, else `vi`, run by `/bin/sh -c '<editor> "$1"'` on a temporary file in the data
/// directory, on this terminal, and the file's text read back when the editor exits 0.
enum ExternalEditor {
    /// The text after editing `initial` in the editor, or `nil` when the editor exited non-zero (nothing
    /// changes then).
    /// - Parameters:
    ///   - initial: the text to start from (the stored answer, or empty).
    ///   - directory: where the temporary file goes (the data directory: 0700, so the text stays private).
    ///   - environment: `VISUAL` / `EDITOR`.
    /// - Throws: ``ShellError`` (`shell.file_unreadable`) when the file cannot be written or read back, or is
    ///   not UTF-8; `shell.failed` when the editor cannot be started.
    static func edit(
        _ initial: String, in directory: URL, environment: [String: String] = ShellEnvironment.variables
    ) throws -> String? {
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let file = directory.appendingPathComponent("answer-edit-\(getpid()).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        do { try Data(initial.utf8).write(to: file) } catch {
            throw ShellError(.fileUnreadable, "Could not write \(file.path) for the editor: \(error)")
        }
        let filePath: String = file.path
        let command: String = editor + " \"$1\""
        let words: [String] = ["/bin/sh", "-c", command, "sh", filePath]
        let argv = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else {
            throw ShellError.failed("Could not start the editor '\(editor)'; set $VISUAL or $EDITOR.")
        }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        guard raw & 0x7f == 0, (raw >> 8) & 0xff == 0 else { return nil }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ShellError(.fileUnreadable, "The edited text could not be read back from \(file.path).")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ShellError(.fileUnreadable, "The edited text is not UTF-8; nothing was answered.")
        }
        return text
    }
}
