import Foundation
import JQCFacilities
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync

/// The inspections feature as the composition root installs it (STYLE.md item 15): local inspections
/// (``InspectionService``), their photos (``InspectionPhotos``: the `inspection` photo owner kind and the
/// rule 12 gate), online history, the 30 s autosave, the `inspections` push stage and outbox kind, and the
/// unsynced inspections' facility references. Extension points:
/// ``InspectionService/register(submitHook:)``, ``InspectionService/register(deletionHook:)`` and
/// ``InspectionService/register(photoFieldClearingHook:)``.
public struct InspectionsFeature: FeatureModule {
    /// `inspections`.
    public let name = "inspections"
    /// The `inspections` table.
    public let store: InspectionStore
    /// Start, answer, save, submit, delete, retry, discard.
    public let service: InspectionService
    /// Photos in image and signature fields.
    public let photos: InspectionPhotos
    /// Completed-inspection history, online only.
    public let history: InspectionHistory
    /// Saves the open draft every 30 s on the clock (interactive surfaces start it).
    public let autosave: DraftAutosaver
    private let api: APIClient
    private let facilities: FacilitiesFeature
    private let photoService: PhotoService

    /// The feature over the core, on the reference cache and the photos it builds on.
    public init(core: FeatureCore, facilities: FacilitiesFeature, photos: PhotosFeature) {
        store = InspectionStore(queue: core.database)
        self.photos = InspectionPhotos(store: store, photos: photos.service, clock: core.clock)
        service = InspectionService(store: store, reference: facilities.store, clock: core.clock)
        history = InspectionHistory(api: core.api)
        autosave = DraftAutosaver(service: service, clock: core.clock)
        api = core.api
        self.facilities = facilities
        photoService = photos.service
    }

    /// Contributes the `inspections` migrations, the photo owner kind `inspection`, the draft-deletion and
    /// photo-field clearing hooks of its photos, its facility references, the `inspections` stage (after
    /// `photos`, rule 12) and outbox kind, and stopping the autosave at shutdown.
    public func install(into app: inout FeatureInstallation) {
        app.registerMigrations(InspectionsSchema.register(in:))
        photoService.registerOwnerKind(photos.photoOwnerRegistration)
        service.register(deletionHook: photos)
        service.register(photoFieldClearingHook: photos)
        facilities.facilityReferences.add(store)
        app.addStage(InspectionPushStage(api: api, store: store, photoGate: photos))
        let store = self.store
        app.addOutboxKind(
            OutboxKind(
                "inspections", pendingCount: { try store.pendingCount() }, failedItems: { try store.failed() },
                waitingItems: { try store.waiting() }))
        let autosave = self.autosave
        app.onShutdown { await autosave.stop() }
    }
}
