import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync

/// Facility ids that unsynced local work references (seed 001 §8.4): the reference prune keeps such a
/// facility, inactive. Later features contribute theirs to ``FacilitiesFeature/facilityReferences``.
public protocol FacilityReferenceSource: Sendable {
    /// - Returns: the facility ids of records not yet synced.
    /// - Throws: the store's error.
    func facilityIDsReferencedByUnsyncedWork(db: Database) throws -> Set<Int>
}

/// The reference-data feature as the composition root installs it (STYLE.md item 15): the cache of
/// contracts, facilities, areas and templates (``ReferenceDataService``), its `reference` pull stage and its
/// server-pulled-data cleaner. Extension point: ``facilityReferences``.
public struct FacilitiesFeature: FeatureModule {
    /// `facilities`.
    public let name = "facilities"
    /// The cache's tables.
    public let store: ReferenceStore
    /// The read surfaces (contracts, facilities, areas, templates with their load phase).
    public let service: ReferenceDataService
    /// The unsynced work of later features (inspections, issues, …) that keeps a pruned facility, read
    /// inside the pull's apply transaction.
    public let facilityReferences = Contributions<any FacilityReferenceSource>()
    private let api: APIClient

    /// The feature over the core's store and API client.
    public init(core: FeatureCore) {
        store = ReferenceStore(queue: core.database)
        service = ReferenceDataService(store: store)
        api = core.api
    }

    /// Contributes the `facilities` migrations, the `reference` stage and the cache's cleaner (rule 42).
    public func install(into app: inout FeatureInstallation) {
        app.registerMigrations(FacilitiesSchema.register(in:))
        let references = facilityReferences
        app.addStage(
            ReferencePullStage(
                api: api, store: store,
                referencedFacilityIDs: { db in
                    var ids = Set<Int>()
                    for source in references.all {
                        ids.formUnion(try source.facilityIDsReferencedByUnsyncedWork(db: db))
                    }
                    return ids
                }))
        let store = self.store
        app.addServerPulledDataCleaner { try store.clearCache() }
    }
}
