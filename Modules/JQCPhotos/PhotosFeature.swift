import Foundation
import JQCKit
import JQCStorage
import JQCSync

/// The photos feature as the composition root installs it (STYLE.md item 15): ``PhotoService`` over
/// `<data-dir>/photos` (0700), the `photos` upload stage and the `photos` outbox kind. Extension point:
/// ``PhotoService/registerOwnerKind(_:)`` (each owning feature registers its kind).
public struct PhotosFeature: FeatureModule {
    /// `photos`.
    public let name = "photos"
    /// Import, upload, owners' queries.
    public let service: PhotoService

    /// The feature over the core.
    /// - Throws: ``PhotoError`` `.fileSystem` when `<data-dir>/photos` cannot be created.
    public init(core: FeatureCore) throws {
        service = try PhotoService(
            database: core.database, directory: core.dataDirectory.appendingPathComponent("photos"), api: core.api,
            clock: core.clock, logger: core.logger.labeled("photos"))
    }

    /// Contributes the `photos` migrations, the upload stage and the `photos` outbox kind.
    public func install(into app: inout FeatureInstallation) {
        app.registerMigrations(PhotosSchema.register(in:))
        app.addStage(service.uploadStage)
        let service = self.service
        app.addOutboxKind(
            OutboxKind(
                "photos", pendingCount: { try service.pendingCount() }, failedItems: { try service.failedItems() }))
    }
}
