import Foundation
import JQCKit
import Synchronization

/// How a ``DevServer`` runs: where it listens, where it keeps state, which data it starts with.
public struct DevServerConfiguration: Sendable {
    /// The data a fresh data directory is filled with at first start.
    public enum Seed: Sendable, Equatable {
        /// `fixtures/devserver/seed.json`, shipped as this target's resource (`--seed demo`).
        case demo
        /// A seed JSON file of the same shape (`--seed FILE`).
        case file(URL)
        /// No data at all (no users: nobody can sign in).
        case none
    }

    /// The IPv4 address to bind (default `127.0.0.1`).
    public var host: String
    /// The port; 0 picks any free port (the bound one is returned by ``DevServer/start()``).
    public var port: Int
    /// Where the SQLite store, `uploads/` and `server.log` live; survives restarts. Created 0700 with every
    /// file 0600; ``DevServer/start()`` refuses one that group or others can write, or another user owns.
    public var dataDirectory: URL
    /// The seed loaded into an empty data directory.
    public var seed: Seed
    /// Overrides the server's calendar day (`--today`); `nil` = the real date in the seed's time zone.
    public var today: CalendarDay?
    /// Enables `/__admin/*`: loopback clients only, a loopback `Host` with the server's port, no foreign
    /// `Origin`, bodies as `application/json` (SHELL.md manual, "The dev server").
    public var admin: Bool
    /// Access-token lifetime in seconds.
    public var accessTTL: Double
    /// Refresh-token lifetime in seconds.
    public var refreshTTL: Double
    /// The real clock: token lifetimes, `created_at`, and (without `today`) the calendar day.
    public var clock: any Clock
    /// Whether list replies carry an `ETag` and a matching `If-None-Match` is answered `304` (the default);
    /// `false` (`--no-etags`) makes a server without ETags, so a client and the no-change bench can be measured
    /// against one (issue 17). The list bodies are the same either way.
    public var etags: Bool

    /// A configuration; every argument but the data directory has the command line's default.
    public init(
        host: String = "127.0.0.1", port: Int = 0, dataDirectory: URL, seed: Seed = .demo,
        today: CalendarDay? = nil, admin: Bool = false, accessTTL: Double = 3_600,
        refreshTTL: Double = 30 * 86_400, clock: any Clock = SystemClock(), etags: Bool = true
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.seed = seed
        self.today = today
        self.admin = admin
        self.accessTTL = accessTTL
        self.refreshTTL = refreshTTL
        self.clock = clock
        self.etags = etags
    }
}

/// The dev server: a faithful stand-in of the JQC `/api/v1` backend (CONTRACT.md, SHELL.md), over
/// libmicrohttpd, with its state in SQLite under the data directory. `jqc-devserver` and the shell's
/// embedded mode both run it like this:
///
/// ```swift
/// let server = DevServer(configuration: .init(dataDirectory: dir))
/// let port = try server.start()      // http://127.0.0.1:port
/// defer { server.stop() }
/// ```
public final class DevServer: Sendable {
    /// The configuration it was made with.
    public let configuration: DevServerConfiguration
    private let running = Mutex<(http: HTTPServer, port: Int, store: ServerStore)?>(nil)

    /// A server that is not yet listening.
    public init(configuration: DevServerConfiguration) {
        self.configuration = configuration
    }

    /// Opens (seeding at first start) the store and starts listening.
    /// - Returns: the bound port (useful with port 0).
    /// - Throws: ``DevServerError`` (`unsafeDataDirectory`, `storage`, `badSeed`, `cannotListen`).
    @discardableResult
    public func start() throws -> Int {
        if let port = running.withLock({ $0?.port }) { return port }
        let configuration = self.configuration
        let clock = configuration.clock
        let override = configuration.today
        let today: @Sendable (String) -> CalendarDay = { timezone in
            if let override { return override }
            let zone = TimeZone(identifier: timezone) ?? .gmt
            return CalendarDay(DateFormats.dayString(clock.now, timeZone: zone))!
        }
        let store = try ServerStore(
            directory: configuration.dataDirectory, seed: configuration.seed, today: today,
            now: clock.now)
        store.ensureSeedPlaceholders()
        let logFile = configuration.dataDirectory.appendingPathComponent("server.log")
        do {
            try PrivateFiles.prepareFile(logFile)  // 0600 before the sink opens it, whatever the umask
        } catch {
            store.queue.close()
            throw error
        }
        let logger = Logger(label: "devserver", sink: FileLogSink(url: logFile), clock: clock)
        let router = DevServerRouter(store: store, configuration: configuration, today: today, logger: logger)
        // Part files of uploads cut short by a crash are never resumed: start with an empty folder.
        let temporary = configuration.dataDirectory.appendingPathComponent("tmp", isDirectory: true)
        try? FileManager.default.removeItem(at: temporary)
        try? PrivateFiles.createFolder(temporary)
        let http = HTTPServer(handler: router, temporaryDirectory: temporary)
        let port: Int
        do {
            port = try http.start(host: configuration.host, port: configuration.port)
        } catch {
            store.queue.close()
            throw error
        }
        router.boundPort.store(port, ordering: .relaxed)
        running.withLock { $0 = (http, port, store) }
        logger.info("listening on \(configuration.host):\(port)")
        return port
    }

    /// Stops listening and closes the store; a no-op when not running.
    public func stop() {
        let stopped = running.withLock { value -> (http: HTTPServer, port: Int, store: ServerStore)? in
            defer { value = nil }
            return value
        }
        stopped?.http.stop()
        stopped?.store.queue.close()
    }

    /// `http://HOST:PORT` while running, else `nil`.
    public var baseURL: URL? {
        running.withLock { value in
            value.flatMap { URL(string: "http://\(configuration.host):\($0.port)") }
        }
    }

    /// The bound port while running, else `nil`.
    public var port: Int? { running.withLock { $0?.port } }

    deinit { stop() }
}
