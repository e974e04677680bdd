import Foundation
import JQCKit

/// The shell's data directory (SHELL.md): the store, credentials, session state, current inspection,
/// connectivity override and the recorded server identity, so a later run continues where the last one
/// stopped. Created with mode 0700; every file the shell writes in it is 0600 (the process umask is 077).
struct DataDirectory: Sendable {
    /// The folder.
    let url: URL

    /// `--data-dir`, else `$JQC_HOME`, else `$XDG_DATA_HOME/jqc`, else `~/.local/share/jqc`.
    static func resolve(option: String?, environment: [String: String] = ShellEnvironment.variables) -> URL {
        if let option, !option.isEmpty { return URL(fileURLWithPath: option) }
        if let home = environment["JQC_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("jqc")
        }
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share/jqc")
    }

    /// Creates the folder (0700) when missing.
    /// - Throws: ``ShellError`` (`shell.data_directory`) with a sentence when it cannot be created.
    static func prepare(_ url: URL) throws -> DataDirectory {
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
        } catch {
            throw ShellError(
                .dataDirectory,
                "Could not create the data directory \(url.path): \(error.localizedDescription). "
                    + "Pick another with --data-dir.")
        }
        return DataDirectory(url: url)
    }

    /// A file in the directory.
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// A small text file's trimmed contents, or `nil` when missing.
    func readText(_ name: String) -> String? {
        (try? String(contentsOf: file(name), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes a small text file atomically (0600).
    /// - Throws: `AtomicFile.WriteError` with a sentence.
    func writeText(_ name: String, _ text: String) throws {
        try AtomicFile.write(Data((text + "\n").utf8), to: file(name), permissions: 0o600)
    }

    /// Removes a file; a missing file is fine.
    func remove(_ name: String) {
        try? FileManager.default.removeItem(at: file(name))
    }

    /// The recorded server identity; `nil` when none is recorded or the record is not valid (rule 81).
    var recordedServer: ServerIdentity? { readText("server").flatMap(ServerIdentity.init(text:)) }
}
