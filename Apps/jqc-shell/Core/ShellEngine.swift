import Foundation
import JQCKit

/// The engine behind the shell for one run: which server (and the embedded dev server when that is the
/// identity), with the composition root built over it. Built on the first command that needs it.
final class ShellEngine: Sendable {
    /// The data directory's server identity for this run.
    let identity: ServerIdentity
    /// The base URL requests go to (the embedded server's changes from run to run).
    let baseURL: URL
    private let embedded: EmbeddedServer?

    private init(identity: ServerIdentity, baseURL: URL, embedded: EmbeddedServer?) {
        self.identity = identity
        self.baseURL = baseURL
        self.embedded = embedded
    }

    /// Resolves the server identity (SHELL.md): the recorded one, unless `--server` names another — a
    /// server switch, which signs out and clears server-pulled data but keeps unsynced local work — then
    /// starts the embedded server when that is the identity.
    /// - Throws: ``ShellError/failed(_:)`` with a sentence.
    static func start(options: ShellOptions, dataDirectory: DataDirectory, output: ShellOutput) async throws -> ShellEngine {
        let recorded = dataDirectory.recordedServer
        let requested = options.server.flatMap(ServerIdentity.init(text:))
        let identity = requested ?? recorded ?? .embedded
        if let recorded, identity != recorded {
            try await ServerSwitch.perform(from: recorded, to: identity, dataDirectory: dataDirectory)
            output.err("Switched server from \(recorded) to \(identity): signed out and server-pulled data cleared; "
                + "unsynced local work was kept.")
        }
        if recorded != identity || dataDirectory.readText("server") != identity.description {
            do {
                try dataDirectory.writeText("server", identity.description)
            } catch {
                throw ShellError.failed("\(error)")
            }
        }
        switch identity {
        case .embedded:
            let server = try EmbeddedServer.start(dataDirectory: dataDirectory)
            return ShellEngine(identity: identity, baseURL: server.baseURL, embedded: server)
        case .remote(let selection):
            return ShellEngine(identity: identity, baseURL: selection.baseURL, embedded: nil)
        }
    }

    /// Stops background work and the embedded server.
    func shutdown() async {
        embedded?.stop()
    }
}

/// What a server switch does to a data directory (SHELL.md; seed 001 §21, rule 42): sign out and clear
/// server-pulled data; never touch unsynced local work.
enum ServerSwitch {
    static func perform(from: ServerIdentity, to: ServerIdentity, dataDirectory: DataDirectory) async throws {
        dataDirectory.remove("credentials")
    }
}
