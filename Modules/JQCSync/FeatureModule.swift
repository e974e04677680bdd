import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import Synchronization

/// A feature, as the composition root installs it (STYLE.md item 15; isowords' app reducer lists its
/// features): one value per feature module, built from the ``FeatureCore`` and the earlier features it
/// builds on, that contributes its migrations, stages, outbox kinds, server-pulled-data cleaners and
/// background work through ``install(into:)``, and its facility references, photo owner kinds and hooks
/// through the earlier features' extension points.
///
/// Nothing outside the feature names it: the engine runs its stages, `status` lists its outbox kinds, a
/// logout runs its cleaners.
public protocol FeatureModule: Sendable {
    /// The feature's name (`photos`, `issues`), for logs and errors; unique among the installed features.
    var name: String { get }
    /// Contributes everything the feature brings (called once, in the composition root's order).
    func install(into app: inout FeatureInstallation)
}

/// What the composition root gives every feature: the live dependencies of phases 0–2, built once.
public struct FeatureCore: Sendable {
    /// The local store (one per data directory), migrated before the first pass.
    public let database: DatabaseQueue
    /// The API client (its session decides whose data this is).
    public let api: APIClient
    /// The clock everything waits on.
    public let clock: any Clock
    /// The root logger; features label it with their name.
    public let logger: Logger
    /// The data directory (0700): a feature keeps its files in a folder named after it.
    public let dataDirectory: URL
    /// The stored session (user id for hooks that need it; never the tokens themselves in logs).
    public let tokens: any TokenStore
    /// Connectivity: the health probe and the manual switch.
    public let connectivity: ConnectivityMonitor
    /// Whether the manual offline switch is on, read synchronously.
    public let isForcedOffline: @Sendable () -> Bool
    /// `GET /api/v1/health`, mapped (the server's time, today and time zone; seed 003).
    public let serverHealth: @Sendable () async throws -> ServerHealth
    /// Every health reply the connectivity probe receives is passed to these observers.
    public let healthObservers: Contributions<@Sendable (ServerHealth) -> Void>
    /// Whom a push acts for (the signed-in user and the server; [authorship], issue 20): a feature that pushes
    /// outside the engine's passes (the notification poller) gives it to its ``SyncPass``. `nil` admits all.
    public let outboxIdentity: @Sendable () async -> OutboxIdentity?

    /// A core.
    public init(
        database: DatabaseQueue, api: APIClient, clock: any Clock, logger: Logger, dataDirectory: URL,
        tokens: any TokenStore, connectivity: ConnectivityMonitor, isForcedOffline: @escaping @Sendable () -> Bool,
        serverHealth: @escaping @Sendable () async throws -> ServerHealth,
        healthObservers: Contributions<@Sendable (ServerHealth) -> Void>,
        outboxIdentity: @escaping @Sendable () async -> OutboxIdentity? = { nil }
    ) {
        self.outboxIdentity = outboxIdentity
        self.database = database
        self.api = api
        self.clock = clock
        self.logger = logger
        self.dataDirectory = dataDirectory
        self.tokens = tokens
        self.connectivity = connectivity
        self.isForcedOffline = isForcedOffline
        self.serverHealth = serverHealth
        self.healthObservers = healthObservers
    }
}

/// Everything the installed features contributed, in installation order: the composition root's phase 3
/// fills it (``install(_:)`` per feature) and phase 4 builds the store's schema, the engine and the
/// surfaces from it.
public struct FeatureInstallation: Sendable {
    /// The installed features, in order.
    public private(set) var features: [any FeatureModule] = []
    /// Every feature's migrations, in installation order (each namespaced by its feature).
    public private(set) var migrator = DatabaseMigrator()
    /// Every feature's stages, in registration order (``orderedStages()`` sorts them).
    public private(set) var stages: [any SyncStage] = []
    /// Every outbox kind, in registration order (`status` lists them so).
    public private(set) var outboxKinds: [OutboxKind] = []
    /// Erasers of server-pulled data, run on logout and server switch (seed 001 rule 42).
    public private(set) var serverPulledDataCleaners: [@Sendable () throws -> Void] = []
    /// Background work started at launch (interactive use), in order.
    public private(set) var launchTasks: [@Sendable () async -> Void] = []
    /// Background work stopped at shutdown, in order.
    public private(set) var shutdownTasks: [@Sendable () async -> Void] = []

    /// An empty installation.
    public init() {}

    /// Installs `feature` (its ``FeatureModule/install(into:)`` runs now) and returns it, so the root
    /// reads as one line per feature.
    /// - Precondition: no installed feature has the same name (a feature is installed once).
    @discardableResult
    public mutating func install<Feature: FeatureModule>(_ feature: Feature) -> Feature {
        precondition(!features.contains { $0.name == feature.name }, "the feature \(feature.name) is installed twice")
        features.append(feature)
        feature.install(into: &self)
        return feature
    }

    /// The installed feature of type `type`, or `nil` (how a surface reaches a feature no core file names).
    public func feature<Feature: FeatureModule>(_ type: Feature.Type) -> Feature? {
        features.lazy.compactMap { $0 as? Feature }.first
    }

    /// Adds the feature's migrations (its schema's `register(in:)`).
    public mutating func registerMigrations(_ register: (inout DatabaseMigrator) -> Void) {
        register(&migrator)
    }

    /// Adds a stage to every pass.
    public mutating func addStage(_ stage: any SyncStage) { stages.append(stage) }

    /// Adds an outbox kind to `status` and `sync`.
    public mutating func addOutboxKind(_ kind: OutboxKind) { outboxKinds.append(kind) }

    /// Adds an eraser of the feature's server-pulled data (rule 42: boundary `serverId != nil`; never
    /// unsynced local work).
    public mutating func addServerPulledDataCleaner(_ clean: @escaping @Sendable () throws -> Void) {
        serverPulledDataCleaners.append(clean)
    }

    /// Adds background work started at launch in interactive use (e.g. a poller).
    public mutating func onLaunch(_ task: @escaping @Sendable () async -> Void) { launchTasks.append(task) }

    /// Adds work run at shutdown (stopping what the feature started).
    public mutating func onShutdown(_ task: @escaping @Sendable () async -> Void) { shutdownTasks.append(task) }

    /// The stages in run order (``StageOrder/sorted(_:)``).
    /// - Throws: ``StageOrderError`` when two stages share a name or the constraints contradict.
    public func orderedStages() throws(StageOrderError) -> [any SyncStage] {
        try StageOrder.sorted(stages)
    }
}

/// Values later features contribute to an earlier feature's extension point (facility references, submit
/// hooks, a prefill provider): added while the features are installed, read when the work runs. An earlier
/// feature never names a later one (SPEC.md §2); it owns one of these and the later feature adds to it.
public final class Contributions<Value: Sendable>: Sendable {
    private let values: Mutex<[Value]>

    /// A list starting with `initial`.
    public init(_ initial: [Value] = []) { values = Mutex(initial) }

    /// Adds a value at the end.
    public func add(_ value: Value) { values.withLock { $0.append(value) } }

    /// Every value, in the order added.
    public var all: [Value] { values.withLock { $0 } }
}
