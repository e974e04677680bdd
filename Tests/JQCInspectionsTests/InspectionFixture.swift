import Foundation
import JQCFacilities
import JQCForms
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCTestSupport
import Synchronization

@testable import JQCInspections

let restroomSchema: JSONValue = [
    ["id": 1, "type": "section", "label": "General", "row": 1, "col": 1, "colSpan": 12],
    ["id": 2, "type": "rating", "label": "Floors clean", "row": 2, "col": 1, "colSpan": 6, "required": true],
    ["id": 3, "type": "pass_fail", "label": "Soap filled", "row": 2, "col": 7, "colSpan": 6, "required": true],
    ["id": 4, "type": "image", "label": "Photo", "row": 3, "col": 1, "colSpan": 6],
    ["id": 5, "type": "text", "label": "Comments", "row": 3, "col": 7, "colSpan": 6],
]

/// Records the hook calls; fails when told to.
final class RecordingHook: InspectionSubmitHook, InspectionDraftDeletionHook {
    let calls = Mutex<[String]>([])
    let failing: Bool
    init(failing: Bool = false) { self.failing = failing }
    func inspectionSubmitted(_ inspection: Inspection, db: Database) throws {
        expectInside(db.isInsideTransaction)
        calls.withLock { $0.append("submitted \(inspection.localID) \(inspection.status.rawValue)") }
        if failing { throw InspectionsError(.invalidState, "hook refused") }
    }
    func draftDeleting(localID: String, db: Database) throws {
        calls.withLock { $0.append("deleting \(localID)") }
    }
    var all: [String] { calls.withLock { $0 } }
}

/// `#expect` for use in a non-test context without importing Testing here.
func expectInside(_ value: Bool) { precondition(value, "the hook must run inside the transaction") }

/// A photo gate answering from a set of local ids.
struct SetPhotoGate: InspectionPhotoGate {
    let waiting: Set<String>
    func hasUnsettledPhotos(inspectionLocalID: String, db: Database) throws -> Bool {
        waiting.contains(inspectionLocalID)
    }
}

/// A migrated store with reference data, a service with sequential ids on a manual clock, and an API
/// client over a scripted transport, signed in.
final class InspectionFixture: @unchecked Sendable {  // because: used by one test at a time.
    let directory = TemporaryDirectory(prefix: "jqc-inspections")
    let queue: DatabaseQueue
    let reference: ReferenceStore
    let store: InspectionStore
    let clock = ManualClock()
    let transport = ScriptedTransport()
    let api: APIClient
    let hook: RecordingHook
    let service: InspectionService

    init(hook: RecordingHook = RecordingHook()) throws {
        queue = try DatabaseQueue(path: directory.path("jqc.sqlite").path)
        var migrator = DatabaseMigrator()
        FacilitiesSchema.register(in: &migrator)
        InspectionsSchema.register(in: &migrator)
        try migrator.migrate(queue)
        reference = ReferenceStore(queue: queue)
        store = InspectionStore(queue: queue)
        self.hook = hook
        let counter = Counter()
        service = InspectionService(
            store: store, reference: reference, clock: clock, submitHooks: [hook],
            deletionHooks: [hook],
            makeID: {
                counter.next()
            })
        let user = User(id: 7, username: "alex", role: .inspector)
        api = APIClient(
            config: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")), transport: transport,
            tokens: InMemoryTokenStore(Credentials(accessToken: "a", refreshToken: "r", user: user)),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "test"), clock: clock)
        try seedReference(schema: restroomSchema)
    }

    /// Facilities 11 (contract 1, areas 111/112) and 21 (contract 2, area 211), inactive 23; template 3
    /// with `schema` and inactive template 9.
    func seedReference(schema: JSONValue, templates: [Int] = [3, 9]) throws {
        var list: [InspectionTemplate] = []
        if templates.contains(3) {
            list.append(
                InspectionTemplate(
                    id: 3, name: "Restroom QC", formSchema: schema,
                    schemaHash: FormSchema(json: schema).hash))
        }
        if templates.contains(9) {
            list.append(InspectionTemplate(id: 9, name: "Legacy", isActive: false, formSchema: [], schemaHash: ""))
        }
        try reference.apply(
            ReferenceReply(
                facilities: [
                    Facility(id: 11, name: "Main Courthouse", projectID: 1, projectName: "County"),
                    Facility(id: 21, name: "Clinic A", projectID: 2, projectName: "Riverside"),
                    Facility(id: 23, name: "Warehouse", projectID: 2, projectName: "Riverside", isActive: false),
                ],
                areas: [
                    Area(id: 111, facilityID: 11, name: "Restrooms"), Area(id: 112, facilityID: 11, name: "Lobby"),
                    Area(id: 211, facilityID: 21, name: "Waiting Room"),
                ],
                templates: list), now: clock.now, referencedFacilityIDs: { _ in [] })
    }

    /// A draft of template 3 at facility 11, answered so it can be submitted.
    func answeredDraft(area: Int? = 111) throws -> Inspection {
        let draft = try service.start(StartRequest(templateID: 3, facilityID: 11, areaID: area))
        try service.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        try service.answer(localID: draft.localID, fieldID: "3", arguments: ["pass"])
        return try service.inspection(localID: draft.localID)
    }

    func stage(gate: any InspectionPhotoGate = NoPhotosGate()) -> InspectionPushStage {
        InspectionPushStage(api: api, store: store, photoGate: gate)
    }

    func pass(explicit: Bool = true) -> SyncPass {
        SyncPass(isExplicit: explicit, clock: clock, classify: SyncFailure.classify, jitter: { 1 })
    }
}

/// Sequential local ids: `local-1`, `local-2`, …
final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> String {
        value.withLock {
            $0 += 1; return "local-\($0)"
        }
    }
}
