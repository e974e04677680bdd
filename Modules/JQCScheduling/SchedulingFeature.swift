import Foundation
import JQCInspections
import JQCKit
import JQCStorage
import JQCSync

/// The scheduling feature as the composition root installs it (STYLE.md item 15): the scheduled
/// inspections' cache and service, the server's today (fed by every health reply, seed 003), the rule 69
/// submit hook, the `scheduled` pull stage and the cleaner. Extension point: ``reinspectionPrefill`` (a
/// follow-up schedule's re-inspection answers, which a later feature resolves).
public struct SchedulingFeature: FeatureModule {
    /// `scheduling`.
    public let name = "scheduling"
    /// The `scheduled_inspections` cache.
    public let store: SchedulingStore
    /// The list, starts from a schedule, planning a follow-up.
    public let service: SchedulingService
    /// The server's today from the last health reply.
    public let serverToday: ServerTodayMemory
    /// Resolves a follow-up schedule's prefill (parent server id, template id → answers); the last one
    /// added answers, none leaves the answers empty. JQCFollowUps adds its own.
    public let reinspectionPrefill = Contributions<@Sendable (Int, Int) throws -> ParentPrefill>()
    private let inspections: InspectionsFeature
    private let core: FeatureCore

    /// The feature over the core, on the inspections it fulfils schedules with.
    public init(core: FeatureCore, inspections: InspectionsFeature) {
        let serverToday = ServerTodayMemory()
        let store = SchedulingStore(queue: core.database)
        let prefill = reinspectionPrefill
        self.serverToday = serverToday
        self.store = store
        service = SchedulingService(
            store: store, api: core.api, serverToday: { serverToday.today },
            learnServerToday: {
                guard let health = try? await core.serverHealth() else { return nil }
                serverToday.record(health.today)
                return health.today
            },
            isOnline: { !core.isForcedOffline() },
            prefill: { parent, template in
                try prefill.all.last?(parent, template) ?? ParentPrefill(localParentID: nil, answers: [:])
            },
            logger: core.logger)
        self.inspections = inspections
        self.core = core
    }

    /// Contributes the `scheduling` migrations, the submit hook (rule 69), the health observer, the
    /// `scheduled` stage and the cleaner.
    public func install(into app: inout FeatureInstallation) {
        app.registerMigrations(SchedulingSchema.register(in:))
        let serverToday = self.serverToday
        let tokens = core.tokens
        inspections.service.register(
            submitHook: ScheduleFulfilmentHook(
                store: store, inspections: inspections.store, serverToday: { serverToday.today },
                currentUserID: { tokens.load().map { Int($0.user.id) } }))
        core.healthObservers.add { serverToday.record($0.today) }
        app.addStage(ScheduledPullStage(service: service))
        let service = self.service
        app.addServerPulledDataCleaner { try service.clearServerPulledData() }
    }
}
