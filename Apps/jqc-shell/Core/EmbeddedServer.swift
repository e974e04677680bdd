import Foundation
import JQCDevServer
import JQCKit

/// The dev server started in-process on 127.0.0.1 with an ephemeral port and the demo data, its state
/// kept under `<data-dir>/embedded-server` (SHELL.md: `--server embedded`, the default). Its admin
/// endpoints are on (loopback only), so fault injection works against it too.
final class EmbeddedServer: Sendable {
    /// `http://127.0.0.1:PORT` for this run.
    let baseURL: URL
    private let server: DevServer

    private init(server: DevServer, baseURL: URL) {
        self.server = server
        self.baseURL = baseURL
    }

    /// Starts the server.
    /// - Throws: ``ShellError/failed(_:)`` with the server's sentence.
    /// - Parameter admin: whether `/__admin` is on (off for the background timer's `sync --background`).
    static func start(dataDirectory: DataDirectory, admin: Bool = true) throws -> EmbeddedServer {
        let directory = dataDirectory.file("embedded-server")
        let server = DevServer(
            configuration: DevServerConfiguration(dataDirectory: directory, seed: .demo, admin: admin))
        do {
            // Processes sharing the data directory (the REPL, a background timer) start their servers one at a
            // time: a first start seeds the store and makes the signing secret, and two at once raced (issue 15).
            let starting = try FileLock(url: dataDirectory.file("embedded-server.lock")).acquireBlocking()
            defer { starting.release() }
            _ = try server.start()
            guard let baseURL = server.baseURL else { throw ShellError.failed("it reported no address") }
            return EmbeddedServer(server: server, baseURL: baseURL)
        } catch {
            throw ShellError.failed("The embedded dev server could not start: \(error)")
        }
    }

    /// Stops listening.
    func stop() { server.stop() }
}
