import Foundation
import JQCForms
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync

/// The `reference` pull stage (seed 001 §8 step 4; a pull, so after every push; not best-effort): GETs
/// `/api/v1/facilities`, `/areas` and `/templates` one after another (rule 4), then applies them in one
/// transaction — facilities deduplicated by id (rule 45), pruned only after both requests succeeded and
/// kept inactive while unsynced local work references them (§8.4), areas related to their facility (rule
/// 57), templates pruned and filtered on `is_active` (rules 55–56). A failed refresh leaves the cache as it
/// was and is recorded per collection for the read surfaces.
public struct ReferencePullStage: SyncStage {
    public let name = "reference"
    public let direction = SyncDirection.pull
    public let isBestEffort = false

    private let api: APIClient
    private let store: ReferenceStore
    private let referencedFacilityIDs: @Sendable (Database) throws -> Set<Int>

    /// A stage pulling through `api` into `store`.
    /// - Parameters:
    ///   - api: the client the three GETs go through.
    ///   - store: the reference tables the pull is applied to, in one transaction.
    ///   - referencedFacilityIDs: the facility ids unsynced local work references (inspections,
    ///     issues), read inside the apply transaction; plugged in by the composition root.
    public init(
        api: APIClient, store: ReferenceStore,
        referencedFacilityIDs: @escaping @Sendable (Database) throws -> Set<Int> = { _ in [] }
    ) {
        self.api = api
        self.store = store
        self.referencedFacilityIDs = referencedFacilityIDs
    }

    public func run(_ pass: SyncPass) async throws -> StageReport {
        let reply: ReferenceReply
        do {
            let facilities = try await api.get([FacilityReply].self, path: "/api/v1/facilities")
            let areas = try await api.get([AreaReply].self, path: "/api/v1/areas")
            let templates = try await api.get([TemplateReply].self, path: "/api/v1/templates")
            reply = ReferenceReply(
                facilities: facilities.map(\.facility), areas: areas.map(\.area),
                templates: templates.map(\.template))
        } catch {
            let message = (error as? APIError)?.message ?? String(describing: error)
            try? store.recordFailure(ReferenceCollection.allCases, at: pass.clock.now, error: message)
            throw error
        }
        try store.apply(reply, now: pass.clock.now, referencedFacilityIDs: referencedFacilityIDs)
        return StageReport(pulled: reply.facilities.count + reply.areas.count + reply.templates.count)
    }
}

/// `/facilities` item (decoded snake → camel; this refresh path has its own decoder, rule 14).
struct FacilityReply: Decodable {
    let id: Int
    let name: String?
    let address: String?
    let projectId: Int?
    let projectName: String?
    let isActive: Bool?

    var facility: Facility {
        Facility(
            id: id, name: name ?? "", address: address, projectID: projectId, projectName: projectName,
            isActive: isActive ?? true)
    }
}

/// `/areas` item.
struct AreaReply: Decodable {
    let id: Int
    let facilityId: Int
    let name: String?
    let areaType: String?

    var area: Area { Area(id: id, facilityID: facilityId, name: name ?? "", areaType: areaType) }
}

/// `/templates` item; the schema is taken raw (never key-converted).
struct TemplateReply: Decodable {
    let id: Int
    let name: String?
    let description: String?
    let isActive: Bool?
    let formSchema: RawJSON?

    var template: InspectionTemplate {
        let schema = formSchema?.value ?? .array([])
        return InspectionTemplate(
            id: id, name: name ?? "", description: description, isActive: isActive ?? true,
            formSchema: schema, schemaHash: FormSchema(json: schema).hash)
    }
}
