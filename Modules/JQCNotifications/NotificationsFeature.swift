import Foundation
import JQCKit
import JQCStorage
import JQCSync

/// The notifications feature as the composition root installs it (STYLE.md item 15): the pulled
/// notifications with their queued mark-read (outbox kind `notification_reads`), the dashboard stats, the
/// two best-effort stages, the 60 s poller (started at launch, stopped at shutdown) and the cleaners.
public struct NotificationsFeature: FeatureModule {
    /// `notifications`.
    public let name = "notifications"
    /// The feature's tables.
    public let store: NotificationStore
    /// Where new notifications are announced; the app attaches its sink (the shell's banner) before launch.
    public let sinks: NotificationRelay
    /// Pulled list, unread count, mark read (queued), the `since` cursor.
    public let service: NotificationService
    /// Dashboard stats, cached, best-effort (rule 49).
    public let dashboard: DashboardService
    /// The 60 s poll while online and signed in (seed 001 §8).
    public let poller: NotificationPoller

    /// The feature over the core.
    /// - Parameters:
    ///   - core: the live dependencies the root built.
    ///   - pollInterval: seconds between notification polls while online and signed in (the seed's 60).
    public init(core: FeatureCore, pollInterval: Double = NotificationPoller.defaultInterval) {
        store = NotificationStore(queue: core.database)
        let sinks = NotificationRelay()
        self.sinks = sinks
        let service = NotificationService(
            store: store, api: core.api, sink: sinks, clock: core.clock, logger: core.logger,
            outboxIdentity: core.outboxIdentity)
        self.service = service
        dashboard = DashboardService(store: store, api: core.api, clock: core.clock, logger: core.logger)
        let api = core.api
        poller = NotificationPoller(
            connectivity: core.connectivity, clock: core.clock, interval: pollInterval,
            isSignedIn: { await api.isSignedIn },
            poll: { await service.poll() })
    }

    /// Contributes the `notifications` migrations, the `notifications` and `dashboard` stages, the outbox kind
    /// `notification_reads`, both cleaners, and the poller's start and stop.
    public func install(into app: inout FeatureInstallation) {
        app.registerMigrations(NotificationsSchema.register(in:))
        app.addStage(NotificationsStage(service: service))
        app.addStage(DashboardStage(service: dashboard))
        let store = self.store
        app.addOutboxKind(OutboxKind("notification_reads", pendingCount: { try store.queuedMarkReadCount() }))
        app.addServerPulledDataCleaner(service.clearServerPulledData)
        app.addServerPulledDataCleaner(dashboard.clearServerPulledData)
        let poller = self.poller
        app.onLaunch { await poller.start() }
        app.onShutdown { await poller.stop() }
    }
}
