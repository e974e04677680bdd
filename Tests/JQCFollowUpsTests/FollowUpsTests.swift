import Foundation
import JQCFacilities
import JQCForms
import JQCInspections
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCScheduling
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

@testable import JQCFollowUps

let restroomSchema: JSONValue = [
    ["id": 2, "type": "rating", "label": "Floors clean", "row": 1, "col": 1, "colSpan": 6, "required": true],
    ["id": 3, "type": "pass_fail", "label": "Soap filled", "row": 1, "col": 7, "colSpan": 6],
    ["id": 4, "type": "image", "label": "Photo", "row": 2, "col": 1, "colSpan": 6],
    ["id": 5, "type": "text", "label": "Comments", "row": 2, "col": 7, "colSpan": 6],
    ["id": 6, "type": "signature", "label": "Signed", "row": 3, "col": 1, "colSpan": 6],
    ["id": 7, "type": "checkbox", "label": "Areas", "row": 3, "col": 7, "colSpan": 6, "options": ["a", "b", "c"]],
]

/// A migrated temporary store (reference, inspections, scheduling, follow-ups), a scripted transport, and
/// the services over them.
struct FollowUpWorld {
    let directory = TemporaryDirectory(prefix: "jqc-followups")
    let transport = ScriptedTransport()
    let clock = ManualClock()
    let queue: DatabaseQueue
    let reference: ReferenceStore
    let inspectionStore: InspectionStore
    let inspections: InspectionService
    let schedules: SchedulingStore
    let store: FollowUpStore
    let service: FollowUpService

    init() throws {
        queue = try DatabaseQueue(path: directory.url.appendingPathComponent("jqc.sqlite").path)
        var migrator = DatabaseMigrator()
        FacilitiesSchema.register(in: &migrator)
        InspectionsSchema.register(in: &migrator)
        SchedulingSchema.register(in: &migrator)
        FollowUpsSchema.register(in: &migrator)
        try migrator.migrate(queue)
        reference = ReferenceStore(queue: queue)
        inspectionStore = InspectionStore(queue: queue)
        schedules = SchedulingStore(queue: queue)
        store = FollowUpStore(queue: queue, inspections: inspectionStore)
        inspections = InspectionService(
            store: inspectionStore, reference: reference, clock: clock,
            submitHooks: [FollowUpSubmitHook(store: store, inspections: inspectionStore)])
        let user = User(id: 7, username: "alex", role: .inspector)
        let api = APIClient(
            config: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")), transport: transport,
            tokens: InMemoryTokenStore(Credentials(accessToken: "a", refreshToken: "r", user: user)),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "test"), clock: clock)
        service = FollowUpService(
            store: store,
            prefiller: ReinspectionPrefiller(inspections: inspectionStore, followUps: store, reference: reference),
            inspections: inspectionStore, schedules: schedules, api: api)
        try reference.apply(
            ReferenceReply(
                facilities: [Facility(id: 11, name: "Main Courthouse", projectID: 1, projectName: "County")],
                areas: [Area(id: 111, facilityID: 11, name: "Restrooms")],
                templates: [
                    InspectionTemplate(
                        id: 3, name: "Restroom QC", formSchema: restroomSchema,
                        schemaHash: FormSchema(json: restroomSchema).hash)
                ]), now: clock.now, referencedFacilityIDs: { _ in [] })
    }

    /// One pass of the `follow-ups` stage against `reply` (the list's `inspections`).
    @discardableResult
    func pull(_ reply: [JSONValue]) async throws -> StageReport {
        transport.route(
            .get, path: FollowUpService.listPath,
            [.ok(["inspections": .array(reply), "total": .int(Int64(reply.count))])])
        return try await FollowUpsPullStage(service: service).run(
            SyncPass(isExplicit: true, clock: clock, classify: SyncFailure.classify))
    }

    /// A completed inspection of template 3 at facility 11, synced as `serverID`, with `answers`.
    func syncedInspection(serverID: Int, answers: [String: JSONValue]) throws -> Inspection {
        let draft = try inspections.start(StartRequest(templateID: 3, facilityID: 11, initialAnswers: answers))
        try inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        _ = try inspections.submit(localID: draft.localID)
        try inspectionStore.markSynced(localID: draft.localID, serverID: serverID, at: clock.now)
        return try inspections.inspection(localID: draft.localID)
    }
}

/// A parent inspection as `GET /inspections?follow_up_required=true` returns it.
func parentJSON(_ id: Int64, note: String? = "Re-check floors", formData: JSONValue) -> JSONValue {
    [
        "id": .int(id), "template_id": 3, "template_name": "Restroom QC", "facility_id": 11,
        "facility_name": "Main Courthouse", "area_id": 111, "area_name": "Restrooms", "status": "completed",
        "follow_up_required": true, "follow_up_note": note.map { .string($0) } ?? nil,
        "inspection_date": "2026-07-10", "form_data": formData,
    ]
}

let parentAnswers: JSONValue = [
    "2": "2", "3": "Fail", "4": "uploads/inspection_photos/p.jpg", "5": "Floor wet near sinks",
    "6": "data:image/png;base64,AAAA", "7": ["a", "c"],
]

@Suite("Follow-up requests: pull, snapshot, prefill and clearing (seed 001 §8 step 6, §15, rules 78, 79)")
struct FollowUpsTests {
    @Test("the pull upserts, snapshots form_data raw (arrays stay arrays), and deletes only absent requests")
    func pullUpsertsAndDeletesAbsent() async throws {
        let world = try FollowUpWorld()
        let report = try await world.pull([parentJSON(501, formData: parentAnswers), parentJSON(503, formData: [:])])
        #expect(report.pulled == 2)
        let cached = try #require(try world.store.request(serverID: 501))
        #expect(cached.parentFormData["7"] == ["a", "c"])
        #expect(cached.note == "Re-check floors")
        #expect(cached.inspectionDate == "2026-07-10")
        try await world.pull([parentJSON(501, note: "Now with mats", formData: parentAnswers)])
        #expect(try world.service.followUps().map(\.serverID) == [501])
        #expect(try world.store.request(serverID: 501)?.note == "Now with mats")
    }

    @Test("the flag and note are mirrored onto the local inspection with that server id, and cleared after")
    func mirrorsOntoLocalInspection() async throws {
        let world = try FollowUpWorld()
        let local = try world.syncedInspection(serverID: 501, answers: ["5": "here"])
        try await world.pull([parentJSON(501, formData: parentAnswers)])
        #expect(try world.inspections.inspection(localID: local.localID).followUpRequired == true)
        #expect(try world.inspections.inspection(localID: local.localID).followUpNote == "Re-check floors")
        try await world.pull([])
        #expect(try world.inspections.inspection(localID: local.localID).followUpRequired == false)
    }

    @Test("a parent absent from the device is prefilled from the snapshot; rating, pass_fail, image, signature blank")
    func prefillFromSnapshot() async throws {
        let world = try FollowUpWorld()
        try await world.pull([parentJSON(501, formData: parentAnswers)])
        let request = try world.service.start(parent: "501")
        #expect(request.templateID == 3)
        #expect(request.facilityID == 11)
        #expect(request.parentInspectionServerID == 501)
        #expect(request.parentInspectionLocalID == nil)
        #expect(request.initialAnswers == ["5": "Floor wet near sinks", "7": ["a", "c"]])
    }

    @Test("a local parent holding values wins over the snapshot; an empty local shell does not shadow it")
    func localParentFirst() async throws {
        let world = try FollowUpWorld()
        let local = try world.syncedInspection(serverID: 501, answers: ["5": "local comment"])
        try await world.pull([parentJSON(501, formData: parentAnswers)])
        let request = try world.service.start(parent: "501")
        #expect(request.parentInspectionLocalID == local.localID)
        #expect(request.initialAnswers == ["5": "local comment"])
        let shell = try world.service.prefiller.prefill(
            local: Inspection?.some(
                {
                    var empty = local; empty.formData = [:]; return empty
                }()),
            parentServerID: 501, templateID: 3)
        #expect(shell.answers == ["5": "Floor wet near sinks", "7": ["a", "c"]])
    }

    @Test("without the template's schema nothing is prefilled (rule 79)")
    func noSchemaNoPrefill() async throws {
        let world = try FollowUpWorld()
        try await world.pull([parentJSON(501, formData: parentAnswers)])
        let prefill = try world.service.prefiller.prefill(local: nil, parentServerID: 501, templateID: 77)
        #expect(prefill.answers.isEmpty)
    }

    @Test("a planned follow-up schedule for the parent is linked to the re-inspection")
    func linksPlannedSchedule() async throws {
        let world = try FollowUpWorld()
        try await world.pull([parentJSON(501, formData: parentAnswers)])
        try world.schedules.apply(
            [
                ScheduledInspection(
                    serverID: 904, facilityID: 11, templateID: 3, dueDate: try #require(CalendarDay("2026-07-15")),
                    parentInspectionID: 501)
            ], serverToday: nil)
        #expect(try world.service.start(parent: "501").scheduledInspectionServerID == 904)
    }

    @Test("submitting the re-inspection hides the request at once; the next pull is authoritative")
    func submitHidesRequest() async throws {
        let world = try FollowUpWorld()
        try await world.pull([parentJSON(501, formData: parentAnswers)])
        let draft = try world.inspections.start(try world.service.start(parent: "501"))
        try world.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["5"])
        _ = try world.inspections.submit(localID: draft.localID)
        #expect(try world.service.followUps().isEmpty)
        try await world.pull([parentJSON(501, formData: parentAnswers)])
        #expect(try world.service.followUps().map(\.serverID) == [501])
    }

    @Test("an unknown parent is refused with a sentence naming the follow-ups list")
    func unknownParent() throws {
        let world = try FollowUpWorld()
        #expect(
            throws: FollowUpsError(
                .notFound,
                "There is no follow-up request or completed inspection 999 on this device; "
                    + "run 'sync' and pick one from 'follow-ups'.")
        ) { try world.service.start(parent: "999") }
    }

    @Test("a reply cut at the limit deletes nothing")
    func truncatedReplyDeletesNothing() async throws {
        let world = try FollowUpWorld()
        try await world.pull([parentJSON(501, formData: [:])])
        try await world.pull((1...200).map { parentJSON(Int64(10_000 + $0), formData: [:]) })
        #expect(try world.store.request(serverID: 501) != nil)
    }
}
