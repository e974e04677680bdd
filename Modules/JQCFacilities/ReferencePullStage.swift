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
///
/// Each GET carries the stored `ETag` of its list (`If-None-Match`); a `304` leaves that list as cached and counts as
/// a successful refresh (issue 17). Fresh lists are diff-applied: only changed rows are written. A record that
/// cannot be read fails alone (logged with its JSON path, counted in `failed`, its sentence in the report) and,
/// when its id is readable, keeps its cached row; a list with a record whose id is unreadable prunes nothing
/// (issue 21).
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
        var pull: ReferencePull
        var problems: [String] = []
        do {
            let known = (try? store.conditions()) ?? [:]
            func get(_ collection: ReferenceCollection, conditional: Bool = true) async throws -> ListReply {
                let stored = conditional ? known[collection] : nil
                return try await api.getList(
                    "/api/v1/\(collection.rawValue)", ifNoneMatch: stored?.etag, knownDigest: stored?.digest)
            }
            let facilities = try await get(.facilities)
            // Areas are applied against the cached facilities (rule 57): after a facilities change they are
            // read in full, so an area skipped or cascaded away before is placed again.
            let areas = try await get(.areas, conditional: facilities.isUnchanged)
            let templates = try await get(.templates)
            func part<Reply: Decodable & Sendable, Item: Sendable & Hashable>(
                _ reply: ListReply, _ list: String, as type: Reply.Type, _ item: (Reply) -> Item
            ) throws -> ReferencePart<Item>? {
                guard case .fresh(let data, let etag, let digest) = reply else { return nil }
                let decoded = try DecodedList<Reply>.decode(data)
                for failure in decoded.failures {
                    pass.logger.warning("a record of /\(list) could not be read: \(failure.reason)")
                }
                problems += decoded.problems(list)
                // A list with an unreadable record keeps no ETag or digest, so the next pass reads and reports it again.
                let complete = decoded.failures.isEmpty
                return ReferencePart(
                    items: decoded.items.map(item), presentIDs: decoded.presentIDs,
                    everyIDReadable: decoded.everyIDReadable, etag: complete ? etag : nil,
                    digest: complete ? digest : nil)
            }
            pull = ReferencePull(
                facilities: try part(facilities, "facilities", as: FacilityReply.self) { $0.facility },
                areas: try part(areas, "areas", as: AreaReply.self) { $0.area },
                templates: try part(templates, "templates", as: TemplateReply.self) { $0.template })
            for (collection, reply) in [
                (ReferenceCollection.facilities, facilities), (.areas, areas), (.templates, templates),
            ] {
                if case .sameBody(let etag?) = reply, etag != known[collection]?.etag {
                    pull.sameBodyETags[collection] = etag
                }
            }
        } catch {
            let message = (error as? APIError)?.message ?? String(describing: error)
            try? store.recordFailure(ReferenceCollection.allCases, at: pass.clock.now, error: message)
            throw error
        }
        try store.apply(pull, now: pass.clock.now, referencedFacilityIDs: referencedFacilityIDs)
        let received =
            (pull.facilities?.items.count ?? 0) + (pull.areas?.items.count ?? 0) + (pull.templates?.items.count ?? 0)
        return StageReport.pull(pulled: received, problems: problems)
    }
}

/// `/facilities` item (decoded snake → camel; this refresh path has its own decoder, rule 14).
struct FacilityReply: Decodable, Sendable {
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
struct AreaReply: Decodable, Sendable {
    let id: Int
    let facilityId: Int
    let name: String?
    let areaType: String?

    var area: Area { Area(id: id, facilityID: facilityId, name: name ?? "", areaType: areaType) }
}

/// `/templates` item; the schema is taken raw (never key-converted).
struct TemplateReply: Decodable, Sendable {
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
