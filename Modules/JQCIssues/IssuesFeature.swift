import Foundation
import JQCFacilities
import JQCInspections
import JQCKit
import JQCPhotos
import JQCStorage
import JQCSync

/// The issues feature as the composition root installs it (STYLE.md item 15): ``IssueService``, the photo
/// owner kind `issue`, its three stages (`issues`, `issue edits`, `assigned issues`), the outbox kinds
/// `issues` and `issue_edits`, the draft-deletion hook (a deleted draft takes its unsynced issues), the
/// unsynced issues' facility references and the server-pulled-data cleaner (rule 42).
public struct IssuesFeature: FeatureModule {
    /// `issues`.
    public let name = "issues"
    /// The `issues` and `issue_edits` tables.
    public let store: IssueStore
    /// Flag, standalone issues, list, edits, comments, retry, discard.
    public let service: IssueService
    private let facilities: FacilitiesFeature
    private let inspections: InspectionsFeature
    private let photos: PhotosFeature

    /// The feature over the core, on the reference cache, the inspections and the photos it builds on.
    public init(
        core: FeatureCore, facilities: FacilitiesFeature, inspections: InspectionsFeature, photos: PhotosFeature
    ) {
        store = IssueStore(queue: core.database)
        service = IssueService(
            store: store, inspections: inspections.store, reference: facilities.store, photos: photos.service,
            api: core.api, clock: core.clock, logger: core.logger)
        self.facilities = facilities
        self.inspections = inspections
        self.photos = photos
    }

    /// Contributes the `issues` migrations, the photo owner kind `issue`, the draft-deletion hook, the
    /// facility references, the three stages, the two outbox kinds and the cleaner.
    public func install(into app: inout FeatureInstallation) {
        app.registerMigrations(IssuesSchema.register(in:))
        photos.service.registerOwnerKind(store.photoOwnerRegistration)
        inspections.service.register(deletionHook: service)
        facilities.facilityReferences.add(store)
        app.addStage(IssuePushStage(service: service))
        app.addStage(IssueEditsStage(service: service))
        app.addStage(AssignedIssuesPullStage(service: service))
        let store = self.store
        app.addOutboxKind(
            OutboxKind(
                "issues", pendingCount: { try store.pendingCount() }, failedItems: { try store.failed() },
                waitingItems: { try store.waiting() }))
        app.addOutboxKind(OutboxKind("issue_edits", pendingCount: { try store.queuedEditCount() }))
        let service = self.service
        app.addServerPulledDataCleaner { try service.clearServerPulledData() }
    }
}
