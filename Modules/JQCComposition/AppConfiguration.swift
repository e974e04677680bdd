import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync

/// What the composition root is built from: the data directory, the server, the build, and the live
/// pieces tests replace (clock, transport).
public struct AppConfiguration: Sendable {
    /// Where the store, credentials, 426 memory, connectivity switch and log live (0700; files 0600).
    public var dataDirectory: URL
    /// The server selection every URL comes from (rules 17, 81).
    public var server: ServerConfig
    /// This build's version, sent as `X-JQC-Client: jqc-shell/<version>`.
    public var clientVersion: String
    /// The clock (a `ManualClock` in tests).
    public var clock: any Clock
    /// The HTTP transport; `nil` builds libcurl's.
    public var transport: (any HTTPTransport)?
    /// The store's durability mode (`FULL` by default).
    public var synchronous: DatabaseConfiguration.Synchronous
    /// Seconds between automatic sync passes.
    public var syncInterval: Double
    /// Seconds between notification polls while online and signed in (the seed's 60 by default).
    public var notificationPollInterval: Double = 60
    /// The log level of `<data-dir>/jqc.log`.
    public var logLevel: LogLevel
    /// The live transport's limits, trust and plain-http rule (`--max-reply-mb`, `--ca-file`,
    /// `--allow-insecure-http`; issue 21); unused when ``transport`` is given.
    public var network: CurlTransport.Configuration
    /// Features installed after the built-in ones, through the same contract (tests install a test-support
    /// feature this way); none by default. A shipped feature gets its own line in the composition root.
    public var additionalFeatures: [FeatureFactory]
    /// The server identity outbox items are stamped with and pushed for ([authorship], issue 20): the shell's
    /// recorded identity (`embedded`, `primary`, `secondary`, a URL — stable while the embedded server's port
    /// changes). `nil`: the server selection's stored value.
    public var serverIdentity: (@Sendable () -> String)? = nil

    /// A configuration with the defaults: libcurl, the system clock, `synchronous=FULL`, a pass every 5 minutes.
    public init(
        dataDirectory: URL, server: ServerConfig, clientVersion: String = AppComposition.version,
        clock: any Clock = SystemClock(), transport: (any HTTPTransport)? = nil,
        synchronous: DatabaseConfiguration.Synchronous = .full, syncInterval: Double = 300,
        logLevel: LogLevel = .info, network: CurlTransport.Configuration = CurlTransport.Configuration(),
        additionalFeatures: [FeatureFactory] = []
    ) {
        self.additionalFeatures = additionalFeatures
        self.dataDirectory = dataDirectory
        self.server = server
        self.clientVersion = clientVersion
        self.clock = clock
        self.transport = transport
        self.synchronous = synchronous
        self.syncInterval = syncInterval
        self.logLevel = logLevel
        self.network = network
    }
}

/// The manual connectivity switch kept in `<data-dir>/connectivity` (`offline` or `online`), so airplane
/// mode survives a restart.
///
/// The switch is read before every request (``OfflineGateTransport``), so that `offline` in one shell stops
/// another process's sync at once: with POSIX `open`/`read`, where a missing file (the usual case) is one
/// failed `open` (issue 17: `String(contentsOf:)` built a Foundation error each time, ~20,000 instructions
/// per request).
public final class FileConnectivityOverrideStore: ConnectivityOverrideStoreProtocol {
    private let url: URL
    private let path: String
    /// A switch stored at `url`.
    public init(url: URL) {
        self.url = url
        path = url.path
    }
    /// Whether the file says `offline` (surrounding whitespace ignored); a missing, unreadable or longer file
    /// says online.
    public func loadForcedOffline() -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4_096)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0, count < bytes.count else { return false }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines) == "offline"
    }
    public func saveForcedOffline(_ offline: Bool) throws {
        try AtomicFile.write(Data((offline ? "offline\n" : "online\n").utf8), to: url, permissions: 0o600)
    }
}

/// JQCSync's switch-store protocol, named here so this file reads plainly.
public typealias ConnectivityOverrideStoreProtocol = ConnectivityOverrideStore

/// Airplane mode at the lowest level: while the switch is on, every request fails as offline before it
/// is sent, so no request leaves, whoever makes it (SHELL.md `offline`).
public struct OfflineGateTransport: HTTPTransport {
    let base: any HTTPTransport
    let isForcedOffline: @Sendable () -> Bool

    /// A gate in front of `base`.
    public init(base: any HTTPTransport, isForcedOffline: @escaping @Sendable () -> Bool) {
        self.base = base
        self.isForcedOffline = isForcedOffline
    }

    public func send(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?) async throws -> HTTPResponse
    {
        if isForcedOffline() { throw TransportError.airplaneMode }
        return try await base.send(request, progress: progress)
    }
}

/// Builds a feature from the built-in ones (``AppConfiguration/additionalFeatures``).
/// - Throws: whatever building the feature throws; the root's construction fails with it.
public typealias FeatureFactory = @Sendable (BuiltInFeatures) throws -> any FeatureModule
