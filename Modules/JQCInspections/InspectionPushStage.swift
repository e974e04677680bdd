import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync

/// The `inspections` push stage (after photos; seed 001 §8 step 2): POSTs each completed,
/// pending inspection whose photos are settled (rule 12; until then it waits, saying so) with its `local_id`,
/// `local://` values stripped (rule 10), GPS only when set (rule 53); on success stores the server id. The
/// outbox policy is JQCSync's ``/JQCSync/OutboxDriver``: transient → stays pending (tries counted for real answers),
/// refused → failed with the server's sentence, signed out / update required / offline → the pass stops.
public struct InspectionPushStage: SyncStage {
    public let name = "inspections"
    public let direction = SyncDirection.push
    /// After the photos stage (rule 12: an inspection is sent once its photos are settled).
    public let constraints: [StageConstraint] = [.after("photos")]
    public let isBestEffort = false

    private let api: APIClient
    private let store: InspectionStore
    private let photoGate: any InspectionPhotoGate

    /// A stage sending `store`'s outbox through `api`.
    public init(api: APIClient, store: InspectionStore, photoGate: any InspectionPhotoGate = NoPhotosGate()) {
        self.api = api
        self.store = store
        self.photoGate = photoGate
    }

    public func run(_ pass: SyncPass) async throws -> StageReport {
        try await OutboxDriver.push(InspectionOutboxFeed(api: api, store: store, photoGate: photoGate), pass: pass)
            .report
    }

    /// The POST body (CONTRACT.md `POST /inspections`, literal snake_case keys, rule 65).
    public static func payload(for inspection: Inspection) -> JSONValue {
        var body: [String: JSONValue] = [
            "local_id": .string(inspection.localID),
            "template_id": .int(Int64(inspection.templateID)),
            "facility_id": .int(Int64(inspection.facilityID)),
            "status": "completed",
            "form_data": .object(stripLocalReferences(inspection.formData)),
            "started_at": .string(DateFormats.instantString(inspection.startedAt)),
            "completed_at": .string(DateFormats.instantString(inspection.completedAt ?? inspection.updatedAt)),
        ]
        if let area = inspection.areaID { body["area_id"] = .int(Int64(area)) }
        if let score = inspection.overallScore { body["overall_score"] = .double(score) }
        if let parent = inspection.parentInspectionServerID { body["parent_inspection_id"] = .int(Int64(parent)) }
        if let schedule = inspection.scheduledInspectionServerID {
            body["scheduled_inspection_id"] = .int(Int64(schedule))
        }
        if let latitude = inspection.submitLatitude, let longitude = inspection.submitLongitude {
            body["submit_latitude"] = .double(latitude)
            body["submit_longitude"] = .double(longitude)
        }
        if let notes = inspection.notes { body["notes"] = .string(notes) }
        return .object(body)
    }

    /// `form_data` with every `local://` value replaced by `""` (seed 001 rule 10; inside arrays and tables too).
    public static func stripLocalReferences(_ formData: [String: JSONValue]) -> [String: JSONValue] {
        formData.mapValues(strip)
    }

    private static func strip(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text) where text.hasPrefix("local://"): .string("")
        case .array(let items): .array(items.map(strip))
        case .object(let members): .object(members.mapValues(strip))
        default: value
        }
    }
}

/// The inspections' outbox as JQCSync's push driver sees it: completed pending inspections, oldest submit
/// first, each read with its POST body and its photo gate's answer (``InspectionPush``); ready once its photos
/// are settled (rule 12); sent as `POST /api/v1/inspections`, the reply's `data.id` required
/// (``/JQCNetwork/APIClient/createRecord(path:json:idempotent:)``: a reply without one is a failure, the item
/// kept); the server's id stored in the synced transaction.
struct InspectionOutboxFeed: OutboxFeed {
    let api: APIClient
    let store: InspectionStore
    let photoGate: any InspectionPhotoGate

    var database: DatabaseQueue { store.queue }
    var table: OutboxTable { InspectionStore.outbox }

    /// Read with the photo gate's answers in the same transaction: a completed inspection gains no photo, and its
    /// photos settle only in the photos stage, which has run (an item judged waiting waits for the next pass).
    func pendingItems() throws -> [InspectionPush] {
        try store.pendingPushItems { localID, db in
            try photoGate.photoWaitReason(inspectionLocalID: localID, db: db)
        }
    }

    func readiness(of item: InspectionPush) throws -> OutboxReadiness {
        item.photoWaitReason.map(OutboxReadiness.waiting) ?? .ready
    }

    func send(_ item: InspectionPush, pass: SyncPass) async throws -> Int {
        try await api.createRecord(path: "/api/v1/inspections", json: item.body)
    }

    func recordSent(_ item: InspectionPush, answer: Int, pass: SyncPass, in db: Database) throws {
        try store.recordServerID(db, localID: item.localID, serverID: answer)
    }
}
