import Foundation
import JQCDevServer

/// The dev server started in-process on 127.0.0.1 with an ephemeral port and the demo data, its state
/// under `<data-dir>/embedded-server` (SHELL.md: `--server embedded`, the default).
final class EmbeddedServer: Sendable {
    let baseURL: URL

    private init(baseURL: URL) { self.baseURL = baseURL }

    static func start(dataDirectory: DataDirectory) throws -> EmbeddedServer {
        throw ShellError.failed("The embedded dev server is not built yet (issue 3); use --server URL.")
    }

    func stop() {}
}
