import Foundation
import JQCFacilities
import JQCFollowUps
import JQCInspections
import JQCIssues
import JQCKit
import JQCNetwork
import JQCNotifications
import JQCPhotos
import JQCScheduling
import JQCStorage
import JQCSync

/// The composition root: every live dependency built once, by hand, in an order that matters (seed 004's
/// shape; SPEC.md §2–3), and the features installed as a list (STYLE.md item 15). No singletons: the shell
/// and the tests each build one of these.
///
/// The construction runs in phases (not SPEC.md §2's module tiers): 0 configuration, 1 storage and
/// transport, 2 the API client and connectivity, 3 the features in their order, 4 the store's schema and the
/// sync engine. Start-up order (seed 001 rules 21–22): ``launch(background:)`` restores the session first,
/// then starts connectivity monitoring, then syncs when online and signed in.
public final class AppComposition: Sendable {
    /// This build's version (`X-JQC-Client: jqc-shell/<version>`).
    public static let version = "0.1.0"

    // Phase 0 — configuration, clock, logger
    /// What this root was built from.
    public let configuration: AppConfiguration
    /// The clock everything waits on.
    public let clock: any Clock
    /// The root logger (`<data-dir>/jqc.log`, redacted).
    public let logger: Logger
    /// The server selection (rules 17, 81).
    public let server: ServerConfig
    /// The server identity outbox items are stamped with and pushed for (``AppConfiguration/serverIdentity``).
    public let serverIdentity: @Sendable () -> String

    // Phase 1 — storage, transport, credentials, request policy
    /// The local store (WAL, foreign keys, `synchronous=FULL`), migrated for every installed feature.
    public let store: DatabaseQueue
    /// The HTTP transport behind the airplane-mode gate.
    public let transport: any HTTPTransport
    /// Credentials in `<data-dir>/credentials` (0600); each save also records the outbox session (issue 20).
    public let tokens: any TokenStore
    /// The persisted 426 memory (seed 004's request policy).
    public let refusals: any UpdateRefusalMemory
    /// The manual connectivity switch.
    public let connectivitySwitch: FileConnectivityOverrideStore

    // Phase 2 — API client, session, connectivity
    /// The API client: every request, the session, the single-flight refresh.
    public let api: APIClient
    /// Connectivity: the health probe and the manual switch.
    public let connectivity: ConnectivityMonitor

    // Phase 3 — features (each owns its tables, endpoints, stages and outbox kinds)
    /// Every installed feature, in installation order (``feature(_:)`` finds one by type).
    public let features: [any FeatureModule]
    /// Every feature's outbox kinds, in registration order, for `status` and `sync`.
    public let outboxKinds: [OutboxKind]
    /// Every feature's server-pulled-data eraser, run on logout and server switch (rule 42).
    private let serverPulledDataCleaners: [@Sendable () throws -> Void]
    private let launchTasks: [@Sendable () async -> Void]
    private let shutdownTasks: [@Sendable () async -> Void]
    /// Reference data (facilities, areas, templates): the cache and its read surfaces (issue 7).
    public let reference: ReferenceDataService
    /// Photos: import into `<data-dir>/photos` (0700), the `photos` upload stage, owner kinds (issue 8).
    public let photos: PhotoService
    /// Local inspections: start, answer, save, submit, delete drafts (issue 7).
    public let inspections: InspectionService
    /// Completed-inspection history, online only (issue 7).
    public let history: InspectionHistory
    /// Saves the open draft every 30 s on the clock (interactive surfaces start it; issue 7).
    public let autosave: DraftAutosaver
    /// Photos in inspection image/signature fields: attach, gate, sentinel → server path (issue 8).
    public let inspectionPhotos: InspectionPhotos
    /// Issues: flag, standalone, list, status/handler edits, comments, retry/discard (issue 8).
    public let issues: IssueService
    /// Where new notifications are announced; the app attaches its sink (the shell's banner) before launch.
    public let notificationSinks: NotificationRelay
    /// Notifications: pulled list, unread count, mark read (queued), the `since` cursor.
    public let notifications: NotificationService
    /// Dashboard stats, cached, best-effort (rule 49).
    public let dashboard: DashboardService
    /// Scheduled inspections: the pulled cache, the list, start from a schedule, plan a follow-up (issue 9).
    public let scheduling: SchedulingService
    /// Follow-up requests: the pulled cache with parent snapshots, re-inspection starts (issue 9).
    public let followUps: FollowUpService
    /// The server's today from the last health reply (seed 003), for synchronous readers (issue 9).
    public let serverToday: ServerTodayMemory
    /// The 60 s notification poll while online and signed in (seed 001 §8).
    public let notificationPoller: NotificationPoller

    // Phase 4 — the sync engine over every feature's stages, and the scheduler
    /// The sync engine running the features' stages in the order they declare.
    public let sync: SyncEngine
    /// Automatic passes (periodic and on reconnect).
    public let scheduler: SyncScheduler

    /// Builds the root. Nothing is sent to the server here. The first root of a process also caps the C
    /// allocator's arenas (JQCKit `AllocatorArenas`: at most `limit`, 4, so resident memory stays flat while syncing).
    /// - Throws: `DatabaseError` when the store cannot be opened or migrated (a sentence: damaged file,
    ///   newer store, disk full). `PhotoError` when `<data-dir>/photos` cannot be created.
    ///   `StageOrderError` when the features' stages declare an order that cannot hold. A feature factory's
    ///   error (``AppConfiguration/additionalFeatures``).
    public init(configuration: AppConfiguration) throws {
        // Phase 0 — the process's allocator (once), configuration, clock, logger
        AllocatorArenas.cap()
        self.configuration = configuration
        clock = configuration.clock
        server = configuration.server
        let selection = configuration.server
        let serverIdentity = configuration.serverIdentity ?? { selection.current.storedValue }
        self.serverIdentity = serverIdentity
        let directory = configuration.dataDirectory
        logger = Logger(
            label: "jqc", minimumLevel: configuration.logLevel,
            sink: FileLogSink(url: directory.appendingPathComponent("jqc.log")), clock: clock)

        // Phase 1 — storage, transport, credentials (the store is migrated in phase 4, once every feature
        // has registered its migrations; before that only the outbox session is recorded in it)
        let store = try DatabaseQueue(
            path: directory.appendingPathComponent("jqc.sqlite").path,
            configuration: DatabaseConfiguration(
                synchronous: configuration.synchronous, pageSize: DatabaseConfiguration.smallRowPageSize))
        let connectivitySwitch = FileConnectivityOverrideStore(url: directory.appendingPathComponent("connectivity"))
        self.connectivitySwitch = connectivitySwitch
        transport = OfflineGateTransport(
            base: configuration.transport
                ?? CurlTransport(configuration: configuration.network, logger: logger.labeled("http")),
            isForcedOffline: { connectivitySwitch.loadForcedOffline() })
        let tokens = AuthorRecordingTokenStore(
            base: FileTokenStore(url: directory.appendingPathComponent("credentials")), store: store,
            server: serverIdentity, logger: logger.labeled("outbox"))
        self.store = store
        self.tokens = tokens
        refusals = FileUpdateRefusalMemory(url: directory.appendingPathComponent("update-required"))
        // The outbox session (issue 20), recorded before the migration: an older store's rows are attributed to
        // the data directory's signed-in user and server; every new outbox row is stamped from it.
        let storedUser = tokens.load()?.user
        try store.write { db in
            try OutboxAuthorship.record(
                db, userID: storedUser?.id, username: storedUser?.username, server: serverIdentity())
        }

        // Phase 2 — API client, session, connectivity (every health reply goes to the features' observers)
        let api = APIClient(
            config: server, transport: transport, tokens: tokens, refusals: refusals,
            identity: ClientIdentity(version: configuration.clientVersion), clock: clock, logger: logger)
        self.api = api
        let healthObservers = Contributions<@Sendable (ServerHealth) -> Void>()
        connectivity = ConnectivityMonitor(
            probe: {
                let health = try await AppComposition.health(api)
                for observe in healthObservers.all { observe(health) }
                return health
            },
            overrideStore: connectivitySwitch, clock: clock)
        let core = FeatureCore(
            database: store, api: api, clock: clock, logger: logger, dataDirectory: directory, tokens: tokens,
            connectivity: connectivity, isForcedOffline: { connectivitySwitch.loadForcedOffline() },
            serverHealth: { try await AppComposition.health(api) }, healthObservers: healthObservers,
            outboxIdentity: { await AppComposition.outboxIdentity(api: api, store: store, server: serverIdentity) })

        // Phase 3 — features, in their order: each built from the core and the features it builds on, then
        // installed (its migrations, stages, outbox kinds, cleaners, photo owner kinds and hooks).
        var installation = FeatureInstallation()
        let facilities = installation.install(FacilitiesFeature(core: core))
        let photos = installation.install(try PhotosFeature(core: core))
        let inspections = installation.install(
            InspectionsFeature(core: core, facilities: facilities, photos: photos))
        let issues = installation.install(
            IssuesFeature(core: core, facilities: facilities, inspections: inspections, photos: photos))
        let scheduling = installation.install(SchedulingFeature(core: core, inspections: inspections))
        let followUps = installation.install(
            FollowUpsFeature(core: core, facilities: facilities, inspections: inspections, scheduling: scheduling))
        let notifications = installation.install(
            NotificationsFeature(core: core, pollInterval: configuration.notificationPollInterval))
        let builtIn = BuiltInFeatures(
            core: core, facilities: facilities, photos: photos, inspections: inspections, issues: issues,
            scheduling: scheduling, followUps: followUps, notifications: notifications)
        for makeFeature in configuration.additionalFeatures {
            installation.install(try makeFeature(builtIn))
        }

        // Phase 4 — the store's schema for every installed feature, then the sync engine over their stages.
        try installation.migrator.migrate(store)
        let connectivity = self.connectivity
        sync = SyncEngine(
            stages: try installation.orderedStages(),
            guards: SyncGuards(
                isOnline: { await connectivity.isOnline },
                isSignedIn: { await api.isSignedIn },
                isUpdateRequired: { await api.isUpdateRequired },
                identity: { await AppComposition.outboxIdentity(api: api, store: store, server: serverIdentity) },
                isForcedOffline: { await connectivity.isForcedOffline }),
            clock: clock, classify: SyncFailure.classify, logger: logger.labeled("sync"),
            passLock: FileSyncPassLock(url: directory.appendingPathComponent("sync.lock")))  // issue 15
        scheduler = SyncScheduler(
            engine: sync, connectivity: connectivity, clock: clock,
            interval: configuration.syncInterval)

        // The surfaces: what the installed features expose, and what they contributed.
        features = installation.features
        outboxKinds = installation.outboxKinds
        serverPulledDataCleaners = installation.serverPulledDataCleaners
        launchTasks = installation.launchTasks
        shutdownTasks = installation.shutdownTasks
        reference = facilities.service
        self.photos = photos.service
        self.inspections = inspections.service
        history = inspections.history
        autosave = inspections.autosave
        inspectionPhotos = inspections.photos
        self.issues = issues.service
        notificationSinks = notifications.sinks
        self.notifications = notifications.service
        dashboard = notifications.dashboard
        notificationPoller = notifications.poller
        self.scheduling = scheduling.service
        serverToday = scheduling.serverToday
        self.followUps = followUps.service
    }

    /// The installed feature of type `type`, or `nil` (how a surface reaches a feature no core file names).
    public func feature<Feature: FeatureModule>(_ type: Feature.Type) -> Feature? {
        features.lazy.compactMap { $0 as? Feature }.first
    }

    /// Launches the engine in the seed's order (rules 21–22): restore the session (`/auth/me`; offline
    /// launch on any non-auth failure), then start monitoring, then sync when online and signed in.
    /// - Parameter background: also start the periodic scheduler, the reconnect trigger and the features'
    ///   background work (the notification poller) — interactive use.
    /// - Returns: how the session was found.
    @discardableResult
    public func launch(background: Bool) async -> SessionRestore {
        let restored: SessionRestore
        if connectivitySwitch.loadForcedOffline() {
            restored = await api.currentUser.map { .offline($0, .offline) } ?? .signedOut
        } else {
            restored = await api.restoreSession()
        }
        try? await recordOutboxSession()  // who new outbox rows belong to (issue 20)
        guard background else { return restored }
        await connectivity.start()
        await scheduler.start()
        for start in launchTasks { await start() }
        if restored.user != nil, await connectivity.isOnline {
            let sync = self.sync
            Task { _ = try? await sync.sync(explicit: false) }
        }
        return restored
    }

    /// Stops background work (the features': autosave, poller; then the scheduler and monitoring) and tries once
    /// more to save a renewed sign-in.
    public func shutdown() async {
        await api.saveUnsavedCredentials()  // a renewed sign-in whose write failed (issue 15)
        for stop in shutdownTasks { await stop() }
        await scheduler.stop()
        await connectivity.stop()
    }

    /// Erases every server-pulled record (boundary: it has a server id; seed 001 §21, rule 42), never
    /// unsynced local work. Called on logout and on a server switch.
    /// - Throws: the store's error.
    public func clearServerPulledData() throws {
        for clean in serverPulledDataCleaners { try clean() }
    }

    /// Every registered outbox kind's counts, in registration order (SHELL.md `status` and `sync`).
    /// - Throws: the store's error.
    public func outboxKindStatuses() throws -> [OutboxKindStatus] {
        try outboxKinds.map { try $0.status() }
    }

    /// Pending counts by kind name (every registered kind: `photos`, `inspections`, `issues`, …) and the
    /// failed items, across features.
    /// - Throws: the store's error.
    public func outboxStatus() throws -> (pending: [String: Int], failed: [FailedOutboxItem]) {
        let kinds = try outboxKindStatuses()
        return (
            Dictionary(kinds.map { ($0.name, $0.pending) }, uniquingKeysWith: +), kinds.flatMap(\.failed)
        )
    }

    /// The health probe: `GET /api/v1/health` mapped onto what connectivity needs.
    static func health(_ api: APIClient) async throws -> ServerHealth {
        let reply = try await api.health()
        guard let todayText = reply.today, let today = CalendarDay(todayText) else {
            throw APIError.undecodable("the health reply has no valid 'today'")
        }
        let time = reply.time.flatMap(DateFormats.instant(from:)) ?? Date()
        return ServerHealth(serverTime: time, today: today, timeZone: reply.timezone ?? "UTC")
    }
}

/// The built-in features, as a feature installed after them (``AppConfiguration/additionalFeatures``) may
/// build on them: the core and each feature's value.
public struct BuiltInFeatures: Sendable {
    /// What every feature is built from.
    public let core: FeatureCore
    /// Reference data.
    public let facilities: FacilitiesFeature
    /// Photos.
    public let photos: PhotosFeature
    /// Inspections.
    public let inspections: InspectionsFeature
    /// Issues.
    public let issues: IssuesFeature
    /// Scheduled inspections.
    public let scheduling: SchedulingFeature
    /// Follow-up requests.
    public let followUps: FollowUpsFeature
    /// Notifications and dashboard stats.
    public let notifications: NotificationsFeature
}
