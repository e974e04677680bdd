import Foundation
import JQCDevServer
import JQCKit

/// The dev server started in-process on 127.0.0.1 with an ephemeral port and the demo data, its state
/// kept under `<data-dir>/embedded-server` (SHELL.md: `--server embedded`, the default; the folder 0700,
/// its files 0600). Its admin endpoints are closed unless the shell was started with `--admin-faults` (or
/// `JQC_ADMIN_FAULTS=1`): any local user could otherwise read every record or install faults (issue 19).
final class EmbeddedServer: Sendable {
    /// `http://127.0.0.1:PORT` for this run.
    let baseURL: URL
    private let server: DevServer

    private init(server: DevServer, baseURL: URL) {
        self.server = server
        self.baseURL = baseURL
    }

    /// Starts the server.
    /// - Parameter adminFaults: open `/__admin` (loopback clients only), for fault injection.
    /// - Throws: ``ShellError`` (`shell.embedded_server`) with the server's sentence.
    static func start(dataDirectory: DataDirectory, adminFaults: Bool) throws -> EmbeddedServer {
        let directory = dataDirectory.file("embedded-server")
        let server = DevServer(
            configuration: DevServerConfiguration(dataDirectory: directory, seed: .demo, admin: adminFaults))
        do {
            // Processes sharing the data directory (the REPL, a background timer) start their servers one at a
            // time: a first start seeds the store and makes the signing secret, and two at once raced (issue 15).
            let starting = try FileLock(url: dataDirectory.file("embedded-server.lock")).acquireBlocking()
            defer { starting.release() }
            _ = try server.start()
            guard let baseURL = server.baseURL else { throw ShellError(.embeddedServer, "it reported no address") }
            return EmbeddedServer(server: server, baseURL: baseURL)
        } catch {
            throw ShellError(.embeddedServer, "The embedded dev server could not start: \(error)", cause: error)
        }
    }

    /// Stops listening.
    func stop() { server.stop() }
}
