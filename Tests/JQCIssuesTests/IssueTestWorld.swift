import Foundation
import JQCFacilities
import JQCForms
import JQCInspections
import JQCJPEG
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCPhotos
import JQCStorage
import JQCSync
import JQCTestSupport

@testable import JQCIssues

let restroomSchema: JSONValue = [
    ["id": 2, "type": "rating", "label": "Floors clean", "row": 1, "col": 1, "colSpan": 6, "required": true],
    ["id": 4, "type": "image", "label": "Photo", "row": 2, "col": 1, "colSpan": 6],
    ["id": 5, "type": "signature", "label": "Signature", "row": 2, "col": 7, "colSpan": 6],
]

/// A temporary store migrated for facilities, photos, inspections and issues; reference data seeded; the
/// services wired the way the composition root wires them; an API client over a scripted transport.
final class IssueTestWorld: @unchecked Sendable {  // because: used by one test at a time.
    let temp = TemporaryDirectory(prefix: "jqc-issues")
    let clock = ManualClock()
    let transport = ScriptedTransport()
    let queue: DatabaseQueue
    let reference: ReferenceStore
    let inspectionStore: InspectionStore
    let inspections: InspectionService
    let photos: PhotoService
    let inspectionPhotos: InspectionPhotos
    let store: IssueStore
    let issues: IssueService
    let api: APIClient

    init() throws {
        queue = try DatabaseQueue(path: temp.path("jqc.sqlite").path)
        var migrator = DatabaseMigrator()
        FacilitiesSchema.register(in: &migrator)
        PhotosSchema.register(in: &migrator)
        InspectionsSchema.register(in: &migrator)
        IssuesSchema.register(in: &migrator)
        try migrator.migrate(queue)
        let user = User(id: 7, username: "alex", role: .inspector)
        api = APIClient(
            config: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")), transport: transport,
            tokens: InMemoryTokenStore(Credentials(accessToken: "a", refreshToken: "r", user: user)),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "test"), clock: clock)
        reference = ReferenceStore(queue: queue)
        inspectionStore = InspectionStore(queue: queue)
        photos = try PhotoService(database: queue, directory: temp.path("photos"), api: api, clock: clock)
        inspectionPhotos = InspectionPhotos(store: inspectionStore, photos: photos, clock: clock)
        photos.registerOwnerKind(inspectionPhotos.photoOwnerRegistration)
        store = IssueStore(queue: queue)
        issues = IssueService(
            store: store, inspections: inspectionStore, reference: reference, photos: photos,
            api: api, clock: clock)
        photos.registerOwnerKind(store.photoOwnerRegistration)
        inspections = InspectionService(
            store: inspectionStore, reference: reference, clock: clock,
            deletionHooks: [inspectionPhotos, issues])
        try reference.apply(
            ReferenceReply(
                facilities: [
                    Facility(id: 11, name: "Main Courthouse", projectID: 1, projectName: "County"),
                    Facility(id: 21, name: "Clinic A", projectID: 2, projectName: "Riverside"),
                ],
                areas: [
                    Area(id: 111, facilityID: 11, name: "Restrooms"), Area(id: 211, facilityID: 21, name: "Lobby"),
                ],
                templates: [
                    InspectionTemplate(
                        id: 3, name: "Restroom QC", formSchema: restroomSchema,
                        schemaHash: FormSchema(json: restroomSchema).hash)
                ]),
            now: clock.now, referencedFacilityIDs: { _ in [] })
    }

    /// An explicit pass with exact backoff.
    func pass(explicit: Bool = true) -> SyncPass {
        SyncPass(isExplicit: explicit, clock: clock, classify: SyncFailure.classify, jitter: { 1 })
    }

    /// Photos, inspections, issues, edits and the assigned-issues pull, in the order they declare.
    var stages: [any SyncStage] {
        get throws { try StageOrder.sorted(registered) }
    }

    /// The same stages in registration order.
    var registered: [any SyncStage] {
        [
            photos.uploadStage, InspectionPushStage(api: api, store: inspectionStore, photoGate: inspectionPhotos),
            IssuePushStage(service: issues), IssueEditsStage(service: issues), AssignedIssuesPullStage(service: issues),
        ]
    }

    /// Runs every stage once, in order.
    @discardableResult
    func runStages(explicit: Bool = true) async throws -> [String: StageReport] {
        var reports: [String: StageReport] = [:]
        for stage in try stages { reports[stage.name] = try await stage.run(pass(explicit: explicit)) }
        return reports
    }

    /// A draft at facility 11, area 111, answered so it can be submitted.
    func draft() throws -> Inspection {
        let draft = try inspections.start(StartRequest(templateID: 3, facilityID: 11, areaID: 111))
        try inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        return try inspections.inspection(localID: draft.localID)
    }

    /// A generated JPEG in the temp folder.
    func jpeg(_ name: String, width: Int = 40, height: Int = 30) throws -> URL {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in pixels.indices { pixels[index] = UInt8(truncatingIfNeeded: index &* 13) }
        let url = temp.path(name)
        try JPEGCodec.encode(try PixelImage(width: width, height: height, channels: 3, pixels: pixels), quality: 90)
            .write(to: url)
        return url
    }

    /// The JSON body of a request.
    static func body(_ request: HTTPRequest) -> JSONValue? {
        if case .data(let data) = request.body { return try? JSONValue.parse(data) }
        return nil
    }

    /// A server issue payload (CONTRACT.md) with `id`, evidence and result photos.
    static func serverIssue(
        _ id: Int, localID: String? = nil, status: String = "open", photoPath: String? = nil,
        mobile: [String] = [], results: [String] = [], createdAt: String = "2026-07-11T09:00:00-04:00"
    ) -> JSONValue {
        [
            "id": .int(Int64(id)), "local_id": localID.map(JSONValue.string) ?? .null, "inspection_id": nil,
            "facility_id": 21, "facility_name": "Clinic A", "area_id": 211, "area_name": "Lobby",
            "severity": "medium", "description": .string("Issue \(id)"), "status": .string(status),
            "photo_path": photoPath.map(JSONValue.string) ?? .null,
            "mobile_photo_paths": .array(mobile.map(JSONValue.string)),
            "result_photos": .array(results.map(JSONValue.string)),
            "photo_urls": [], "result_photo_urls": [], "result_notes": "Fixed", "verified_at": nil,
            "verification_note": nil, "reported_by_name": "Dana Okafor", "assigned_to_name": "Alex Rivera",
            "handler_type": "vendor", "handler_label": "Vendor: Dryer Pros", "facility_handler_name": nil,
            "facility_handler_contact": nil, "facility_handler_notes": nil, "vendor_name": "Dryer Pros",
            "vendor_contact": "555-0142", "vendor_notes": nil, "created_at": .string(createdAt),
            "updated_at": "2026-07-11T09:00:00-04:00",
        ]
    }
}
