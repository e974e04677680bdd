import Foundation
import JQCFacilities
import JQCInspections
import JQCKit
import JQCScheduling
import JQCStorage
import JQCSync

/// The follow-ups feature as the composition root installs it (STYLE.md item 15): the follow-up requests'
/// cache and service, the re-inspection prefill (seed 001 §15) it lends the scheduling feature, the submit
/// hook that hides a parent's request, the `follow-ups` pull stage and the cleaner.
public struct FollowUpsFeature: FeatureModule {
    /// `follow-ups`.
    public let name = "follow-ups"
    /// The `follow_up_requests` cache.
    public let store: FollowUpStore
    /// The list and re-inspection starts.
    public let service: FollowUpService
    /// §15's two prefill sources.
    public let prefiller: ReinspectionPrefiller
    private let inspections: InspectionsFeature
    private let scheduling: SchedulingFeature

    /// The feature over the core, on the reference cache, the inspections and the schedules it builds on.
    public init(
        core: FeatureCore, facilities: FacilitiesFeature, inspections: InspectionsFeature,
        scheduling: SchedulingFeature
    ) {
        store = FollowUpStore(queue: core.database, inspections: inspections.store)
        prefiller = ReinspectionPrefiller(inspections: inspections.store, followUps: store, reference: facilities.store)
        service = FollowUpService(
            store: store, prefiller: prefiller, inspections: inspections.store, schedules: scheduling.store,
            api: core.api, logger: core.logger)
        self.inspections = inspections
        self.scheduling = scheduling
    }

    /// Contributes the `followups` migrations, the submit hook, the prefill for follow-up schedules, the
    /// `follow-ups` stage (before `scheduled`) and the cleaner.
    public func install(into app: inout FeatureInstallation) {
        app.registerMigrations(FollowUpsSchema.register(in:))
        inspections.service.register(submitHook: FollowUpSubmitHook(store: store, inspections: inspections.store))
        let prefiller = self.prefiller
        scheduling.reinspectionPrefill.add { parent, template in
            try prefiller.prefill(parentServerID: parent, templateID: template)
        }
        app.addStage(FollowUpsPullStage(service: service))
        let service = self.service
        app.addServerPulledDataCleaner { try service.clearServerPulledData() }
    }
}
