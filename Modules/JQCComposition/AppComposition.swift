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

/// The composition root: every live dependency built once, by hand, in tiers, in an order that matters
/// (seed 004's shape; SPEC.md §2–3). No singletons: the shell and the tests each build one of these.
///
/// Start-up order (seed 001 rules 21–22): ``launch(background:)`` restores the session first, then starts
/// connectivity monitoring, then syncs when online and signed in.
public final class AppComposition: Sendable {
    /// This build's version (`X-JQC-Client: jqc-shell/<version>`).
    public static let version = "0.1.0"

    // Tier 0 — configuration, clock, logger
    /// What this root was built from.
    public let configuration: AppConfiguration
    /// The clock everything waits on.
    public let clock: any Clock
    /// The root logger (`<data-dir>/jqc.log`, redacted).
    public let logger: Logger
    /// The server selection (rules 17, 81).
    public let server: ServerConfig

    // Tier 1 — storage, transport, credentials, request policy
    /// The local store (WAL, foreign keys, `synchronous=FULL`), migrated for every feature.
    public let store: DatabaseQueue
    /// The HTTP transport behind the airplane-mode gate.
    public let transport: any HTTPTransport
    /// Credentials in `<data-dir>/credentials` (0600).
    public let tokens: any TokenStore
    /// The persisted 426 memory (seed 004's request policy).
    public let refusals: any UpdateRefusalMemory
    /// The manual connectivity switch.
    public let connectivitySwitch: FileConnectivityOverrideStore

    // Tier 2 — API client and session
    /// The API client: every request, the session, the single-flight refresh.
    public let api: APIClient

    // Tier 3 — features (each owns its tables, endpoints and stages)
    /// Reference data (facilities, areas, templates): the cache and its read surfaces (issue 7).
    public let reference: ReferenceDataService
    /// Photos: import into `<data-dir>/photos` (0700), the `photos` upload stage, owner hooks (issue 8).
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
    /// Every feature's outbox report, for `status`.
    public let outboxReporters: [any OutboxReporter]
    /// Every feature's server-pulled-data eraser, run on logout and server switch (rule 42).
    private let serverPulledDataCleaners: [@Sendable () throws -> Void]
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

    // Tier 4 — sync engine with its stages in order, connectivity, scheduler
    /// Connectivity: the health probe and the manual switch.
    public let connectivity: ConnectivityMonitor
    /// The sync engine with every feature's stages registered in order.
    public let sync: SyncEngine
    /// Automatic passes (periodic and on reconnect).
    public let scheduler: SyncScheduler
    /// The 60 s notification poll while online and signed in (seed 001 §8).
    public let notificationPoller: NotificationPoller

    /// Builds the root. Nothing is sent to the server here.
    /// - Throws: `DatabaseError` when the store cannot be opened or migrated (a sentence: damaged file,
    ///   newer store, disk full). `PhotoError` when `<data-dir>/photos` cannot be created.
    ///   `StageOrderError` when the features' stages declare an order that cannot hold.
    public init(configuration: AppConfiguration) throws {
        // Tier 0
        self.configuration = configuration
        clock = configuration.clock
        server = configuration.server
        let directory = configuration.dataDirectory
        logger = Logger(
            label: "jqc", minimumLevel: configuration.logLevel,
            sink: FileLogSink(url: directory.appendingPathComponent("jqc.log")), clock: clock)

        // Tier 1
        store = try DatabaseQueue(
            path: directory.appendingPathComponent("jqc.sqlite").path,
            configuration: DatabaseConfiguration(synchronous: configuration.synchronous))
        var migrator = DatabaseMigrator()
        AppComposition.registerMigrations(&migrator)
        try migrator.migrate(store)
        let connectivitySwitch = FileConnectivityOverrideStore(url: directory.appendingPathComponent("connectivity"))
        self.connectivitySwitch = connectivitySwitch
        transport = OfflineGateTransport(
            base: configuration.transport ?? CurlTransport(logger: logger.labeled("http")),
            isForcedOffline: { connectivitySwitch.loadForcedOffline() })
        tokens = FileTokenStore(url: directory.appendingPathComponent("credentials"))
        refusals = FileUpdateRefusalMemory(url: directory.appendingPathComponent("update-required"))

        // Tier 2
        let api = APIClient(
            config: server, transport: transport, tokens: tokens, refusals: refusals,
            identity: ClientIdentity(version: configuration.clientVersion), clock: clock, logger: logger)
        self.api = api

        // Tier 3 — features: stores, services, hooks (each later issue adds its own here).
        var stages: [any SyncStage] = []
        var reporters: [any OutboxReporter] = []
        var cleaners: [@Sendable () throws -> Void] = []
        // Reference data (issue 7): pulled by the `reference` stage; cleared on logout / server switch.
        let referenceStore = ReferenceStore(queue: store)
        reference = ReferenceDataService(store: referenceStore)
        cleaners.append { try referenceStore.clearCache() }

        // Photos: imported JPEGs and their upload stage (owners are told through PhotoUploadListener).
        let photos = try PhotoService(
            database: store, directory: directory.appendingPathComponent("photos"), api: api,
            clock: clock, logger: logger.labeled("photos"))
        self.photos = photos
        stages.append(photos.uploadStage)
        reporters.append(photos)

        // Inspections (issue 7). Seams for later features: submit hooks (Scheduling, FollowUps), deletion
        // hooks (Photos, Issues), the photo gate (Photos, rule 12), facility references (Issues).
        let inspectionStore = InspectionStore(queue: store)
        // Scheduling and follow-ups (issue 9): caches, the rule 69 fulfilment hook, the follow-up hook.
        let serverToday = ServerTodayMemory()
        self.serverToday = serverToday
        let tokens = self.tokens
        let schedulingStore = SchedulingStore(queue: store)
        let followUpStore = FollowUpStore(queue: store, inspections: inspectionStore)
        let prefiller = ReinspectionPrefiller(
            inspections: inspectionStore, followUps: followUpStore,
            reference: referenceStore)
        let schedulingHooks: [any InspectionSubmitHook] = [
            ScheduleFulfilmentHook(
                store: schedulingStore, inspections: inspectionStore,
                serverToday: { serverToday.today },
                currentUserID: { tokens.load().map { Int($0.user.id) } }),
            FollowUpSubmitHook(store: followUpStore, inspections: inspectionStore),
        ]
        // Photo ↔ inspection wiring and issues (issue 8): built before the inspection service, whose draft
        // deletion hooks they are.
        let inspectionPhotos = InspectionPhotos(store: inspectionStore, photos: photos, clock: clock)
        self.inspectionPhotos = inspectionPhotos
        photos.registerOwnerKind(inspectionPhotos.photoOwnerRegistration)
        let issueStore = IssueStore(queue: store)
        let issues = IssueService(
            store: issueStore, inspections: inspectionStore, reference: referenceStore,
            photos: photos, api: api, clock: clock, logger: logger)
        self.issues = issues
        photos.registerOwnerKind(issueStore.photoOwnerRegistration)
        let draftDeletionHooks: [any InspectionDraftDeletionHook] = [inspectionPhotos, issues]
        inspections = InspectionService(
            store: inspectionStore, reference: referenceStore, clock: clock,
            submitHooks: schedulingHooks, deletionHooks: draftDeletionHooks)
        history = InspectionHistory(api: api)
        autosave = DraftAutosaver(service: inspections, clock: clock)
        let photoGate: any InspectionPhotoGate = inspectionPhotos  // rule 12: photos settle first
        stages.append(InspectionPushStage(api: api, store: inspectionStore, photoGate: photoGate))
        reporters.append(InspectionOutboxReporter(store: inspectionStore))
        // Issues (issue 8): push after inspections (rule 11), queued edits, the assigned-issues pull.
        stages += [
            IssuePushStage(service: issues), IssueEditsStage(service: issues),
            AssignedIssuesPullStage(service: issues),
        ]
        reporters.append(issues)
        cleaners.append { try issues.clearServerPulledData() }
        // Unsynced work that keeps a pruned facility as inactive (seed 001 §8.4).
        let facilityReferences: [any FacilityReferenceSource] = [inspectionStore, issueStore]
        stages.append(
            ReferencePullStage(
                api: api, store: referenceStore,
                referencedFacilityIDs: { db in
                    var ids = Set<Int>()
                    for source in facilityReferences {
                        ids.formUnion(try source.facilityIDsReferencedByUnsyncedWork(db: db))
                    }
                    return ids
                }))

        // Notifications and dashboard stats (best-effort pulls; the poller is started at launch).
        let notificationStore = NotificationStore(queue: store)
        let notificationSinks = NotificationRelay()
        self.notificationSinks = notificationSinks
        let notifications = NotificationService(
            store: notificationStore, api: api, sink: notificationSinks,
            clock: clock, logger: logger)
        let dashboard = DashboardService(store: notificationStore, api: api, clock: clock, logger: logger)
        self.notifications = notifications
        self.dashboard = dashboard
        stages += [NotificationsStage(service: notifications), DashboardStage(service: dashboard)]
        cleaners += [notifications.clearServerPulledData, dashboard.clearServerPulledData]
        let switchStore = connectivitySwitch
        let scheduling = SchedulingService(
            store: schedulingStore, api: api, serverToday: { serverToday.today },
            learnServerToday: {
                guard let health = try? await AppComposition.health(api) else { return nil }
                serverToday.record(health.today)
                return health.today
            },
            isOnline: { !switchStore.loadForcedOffline() },
            prefill: { try prefiller.prefill(parentServerID: $0, templateID: $1) })
        let followUps = FollowUpService(
            store: followUpStore, prefiller: prefiller, inspections: inspectionStore,
            schedules: schedulingStore, api: api)
        self.scheduling = scheduling
        self.followUps = followUps
        stages += [FollowUpsPullStage(service: followUps), ScheduledPullStage(service: scheduling)]
        cleaners += [scheduling.clearServerPulledData, followUps.clearServerPulledData]
        outboxReporters = reporters
        serverPulledDataCleaners = cleaners

        // Tier 4
        connectivity = ConnectivityMonitor(
            probe: {
                let health = try await AppComposition.health(api)
                serverToday.record(health.today)  // issue 9: for the submit hook
                return health
            },
            overrideStore: connectivitySwitch, clock: clock)
        let connectivity = self.connectivity
        sync = SyncEngine(
            stages: try StageOrder.sorted(stages),
            guards: SyncGuards(
                isOnline: { await connectivity.isOnline },
                isSignedIn: { await api.isSignedIn },
                isUpdateRequired: { await api.isUpdateRequired }),
            clock: clock, classify: SyncFailure.classify, logger: logger.labeled("sync"))
        scheduler = SyncScheduler(
            engine: sync, connectivity: connectivity, clock: clock,
            interval: configuration.syncInterval)
        notificationPoller = NotificationPoller(
            connectivity: connectivity, clock: clock,
            isSignedIn: { await api.isSignedIn },
            poll: { await notifications.poll() })
    }

    /// Every feature's migrations, in feature order (each namespaced by its feature).
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        FacilitiesSchema.register(in: &migrator)
        PhotosSchema.register(in: &migrator)
        InspectionsSchema.register(in: &migrator)
        IssuesSchema.register(in: &migrator)
        NotificationsSchema.register(in: &migrator)
        SchedulingSchema.register(in: &migrator)
        FollowUpsSchema.register(in: &migrator)
    }

    /// Launches the engine in the seed's order (rules 21–22): restore the session (`/auth/me`; offline
    /// launch on any non-auth failure), then start monitoring, then sync when online and signed in.
    /// - Parameter background: also start the periodic scheduler and the reconnect trigger (interactive use).
    /// - Returns: how the session was found.
    @discardableResult
    public func launch(background: Bool) async -> SessionRestore {
        let restored: SessionRestore
        if connectivitySwitch.loadForcedOffline() {
            restored = await api.currentUser.map { .offline($0, .offline) } ?? .signedOut
        } else {
            restored = await api.restoreSession()
        }
        guard background else { return restored }
        await connectivity.start()
        await scheduler.start()
        await notificationPoller.start()
        if restored.user != nil, await connectivity.isOnline {
            let sync = self.sync
            Task { _ = try? await sync.sync(explicit: false) }
        }
        return restored
    }

    /// Stops background work (monitoring, scheduler).
    public func shutdown() async {
        await autosave.stop()
        await notificationPoller.stop()
        await scheduler.stop()
        await connectivity.stop()
    }

    /// Erases every server-pulled record (boundary: it has a server id; seed 001 §21, rule 42), never
    /// unsynced local work. Called on logout and on a server switch.
    /// - Throws: the store's error.
    public func clearServerPulledData() throws {
        for clean in serverPulledDataCleaners { try clean() }
    }

    /// Pending counts by kind (`photos`, `inspections`, `issues`) and failed items, across features.
    /// - Throws: the store's error.
    public func outboxStatus() throws -> (pending: [String: Int], failed: [FailedOutboxItem]) {
        var pending: [String: Int] = ["photos": 0, "inspections": 0, "issues": 0]
        var failed: [FailedOutboxItem] = []
        for reporter in outboxReporters {
            pending.merge(try reporter.pendingCounts()) { $0 + $1 }
            failed += try reporter.failedItems()
        }
        return (pending, failed)
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
