import Foundation
import JQCComposition
import JQCDevServer
import JQCJPEG
import JQCKit
import JQCNetwork
import JQCTestSupport
import Testing

/// An in-process dev server (demo seed, admin on) and a composition root pointed at it over real HTTP on
/// loopback: the integration tests' world. Each instance has its own temporary folders.
final class TestApp: @unchecked Sendable {  // because: immutable after init; the server and root are thread-safe.
    let serverDirectory = TemporaryDirectory(prefix: "jqc-it-server")
    let clientDirectory = TemporaryDirectory(prefix: "jqc-it-client")
    let server: DevServer
    let baseURL: URL
    let selection: InMemorySelectionStore
    private(set) var app: AppComposition
    let clock: any Clock

    /// The transport the root sends through (`nil`: libcurl's, built by the root).
    let transport: (any HTTPTransport)?
    /// Features installed after the built-in ones (a test-support feature).
    let features: [FeatureFactory]

    /// Starts the server (optionally with a fixed `today`) and builds a root over it, sending through
    /// `transport` when one is given (a recording wrapper around libcurl).
    init(
        today: CalendarDay? = nil, accessTTL: Double = 3_600, clock: any Clock = SystemClock(),
        transport: (any HTTPTransport)? = nil, features: [FeatureFactory] = [], etags: Bool = true
    ) throws {
        self.clock = clock
        self.transport = transport
        self.features = features
        server = DevServer(
            configuration: DevServerConfiguration(
                dataDirectory: serverDirectory.url, seed: .demo, today: today,
                admin: true, accessTTL: accessTTL, etags: etags))
        _ = try server.start()
        baseURL = try #require(server.baseURL)
        selection = InMemorySelectionStore(baseURL.absoluteString)
        app = try TestApp.makeRoot(
            directory: clientDirectory.url, selection: selection, clock: clock, transport: transport,
            features: features)
    }

    static func makeRoot(
        directory: URL, selection: InMemorySelectionStore, clock: any Clock, transport: (any HTTPTransport)? = nil,
        features: [FeatureFactory] = []
    ) throws -> AppComposition {
        try AppComposition(
            configuration: AppConfiguration(
                dataDirectory: directory, server: ServerConfig(store: selection), clock: clock, transport: transport,
                additionalFeatures: features))
    }

    /// Builds a fresh root over the same client data directory (a restart of the app).
    func restart() throws {
        app = try TestApp.makeRoot(
            directory: clientDirectory.url, selection: selection, clock: clock, transport: transport,
            features: features)
    }

    /// Signs in as the demo inspector `alex` (or another seed user).
    func login(_ username: String = "alex", password: String = "inspect-demo") async throws {
        _ = try await app.api.login(username: username, password: password)
    }

    /// `POST /__admin/faults` with `body` (SHELL.md), e.g. `["path_prefix": "/api/v1/inspections", "mode": "status", "status": 500]`.
    func fault(_ body: JSONValue) throws { _ = try admin("POST", "/__admin/faults", body) }

    /// `GET /__admin/state`'s `data`.
    func adminState() throws -> JSONValue { try admin("GET", "/__admin/state", nil)["data"] ?? .null }

    /// Calls an admin endpoint with curl (kept apart from the client under test).
    @discardableResult
    func admin(_ method: String, _ path: String, _ body: JSONValue?) throws -> JSONValue {
        try AdminRequest.send(baseURL, method, path, body)
    }

    deinit { server.stop() }
}

/// Writes a generated 64 × 48 JPEG (a pattern that depends on `seed`) into `directory` and returns it.
func jpeg(in directory: URL, _ name: String, seed: Int) throws -> URL {
    let width = 64, height = 48
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for index in pixels.indices { pixels[index] = UInt8(truncatingIfNeeded: index &* 7 &+ seed &* 31) }
    let url = directory.appendingPathComponent(name)
    try JPEGCodec.encode(try PixelImage(width: width, height: height, channels: 3, pixels: pixels), quality: 90)
        .write(to: url)
    return url
}
