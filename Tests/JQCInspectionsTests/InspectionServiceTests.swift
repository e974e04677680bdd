import Foundation
import JQCFacilities
import JQCKit
import Testing

@testable import JQCInspections

@Suite("Inspection service (seed 001 §11)")
struct InspectionServiceTests {
    @Test("start refuses an unknown or inactive template, an inactive facility, and an area of another facility")
    func startRefusals() throws {
        let world = try InspectionFixture()
        #expect(
            throws: InspectionsError(
                .unknownTemplate,
                "There is no template 99 on this device; run 'sync' and pick one from 'templates'.")
        ) {
            try world.service.start(StartRequest(templateID: 99, facilityID: 11))
        }
        #expect(
            throws: InspectionsError(
                .unknownTemplate,
                "The template 9 (Legacy) is no longer active; pick one from 'templates'.")
        ) {
            try world.service.start(StartRequest(templateID: 9, facilityID: 11))
        }
        #expect(
            throws: InspectionsError(
                .unknownFacility,
                "The facility 23 (Warehouse) is no longer in your contracts; pick one from 'facilities'.")
        ) {
            try world.service.start(StartRequest(templateID: 3, facilityID: 23))
        }
        #expect(
            throws: InspectionsError(
                .unknownArea,
                "The area 211 is not part of Main Courthouse; its areas are: 112 Lobby, 111 Restrooms.")
        ) {
            try world.service.start(StartRequest(templateID: 3, facilityID: 11, areaID: 211))
        }
        #expect(try world.service.list().isEmpty)
    }

    @Test("a started draft pins the template's schema and hash, names, contract and start time")
    func startPins() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11, areaID: 112))
        let stored = try world.service.inspection(localID: draft.localID)
        #expect(stored.localID == "local-1")
        #expect(stored.schemaSnapshot == restroomSchema)
        #expect(stored.schemaHash == stored.schema.hash)
        #expect(stored.facilityName == "Main Courthouse")
        #expect(stored.areaName == "Lobby")
        #expect(stored.projectID == 1)
        #expect(stored.status == .draft)
        #expect(stored.badge == .draft)
        #expect(stored.startedAt == world.clock.now)
    }

    @Test("rule 32: choosing a contract keeps a pre-filled facility of that contract and clears one of another")
    func cascadeKeepsPrefilledFacility() throws {
        let world = try InspectionFixture()
        let facilities = try world.reference.facilities(activeOnly: false)
        let areas = try world.reference.areas(facilityID: 11)
        var cascade = StartCascade(facilities: facilities, areas: areas, prefilledFacilityID: 11)
        cascade.selectContract(1)
        #expect(cascade.facilityID == 11)
        cascade.selectArea(111)
        #expect(cascade.areaID == 111)
        cascade.selectContract(2)
        #expect(cascade.facilityID == nil)
        #expect(cascade.areaID == nil)
        #expect(cascade.availableFacilities.map(\.id) == [21])
    }

    @Test("an answer is written to the store at once, typed by the pinned schema")
    func answerWritesAtOnce() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        try world.service.answer(localID: draft.localID, fieldID: "3", arguments: ["FAIL"])
        let reopened = InspectionStore(queue: world.queue)
        #expect(try reopened.inspection(localID: draft.localID)?.formData == ["3": "Fail"])
        #expect(throws: InspectionsError.self) {
            try world.service.answer(localID: draft.localID, fieldID: "42", arguments: ["x"])
        }
    }

    @Test("submit is refused with the missing required labels in schema order, and nothing changes")
    func submitRefusedWhenRequiredMissing() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let error = #expect(throws: InspectionsError.self) { try world.service.submit(localID: draft.localID) }
        #expect(error?.kind == .requiredMissing)
        #expect(error?.missingLabels == ["Floors clean", "Soap filled"])
        #expect(error?.message == "Submit refused: answer the required fields \"Floors clean\", \"Soap filled\" first.")
        #expect(try world.service.inspection(localID: draft.localID).status == .draft)
        #expect(world.hook.all.isEmpty)
    }

    @Test("submit writes completed, pending, completed_at, the score and the GPS in one go and calls the hooks")
    func submitAtomically() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        world.clock.advance(by: 90)
        let result = try world.service.submit(
            localID: draft.localID, location: Coordinate(latitude: 40.5, longitude: -74.25))
        let stored = try world.service.inspection(localID: draft.localID)
        #expect(stored.status == .completed)
        #expect(stored.syncStatus == .pending)
        #expect(stored.badge == .pendingSync)
        #expect(stored.completedAt == world.clock.now)
        #expect(stored.overallScore == 90)
        #expect(stored.submitLatitude == 40.5)
        #expect(stored.submitLongitude == -74.25)
        #expect(result.followUp == .notAReinspection)
        #expect(world.hook.all == ["submitted local-1 completed"])
        #expect(try world.store.pendingCount() == 1)
    }

    @Test("rule 53: submit without GPS succeeds and leaves the coordinates empty")
    func submitWithoutGPS() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        let result = try world.service.submit(localID: draft.localID)
        #expect(result.inspection.submitLatitude == nil)
        #expect(result.inspection.submitLongitude == nil)
        #expect(InspectionPushStage.payload(for: result.inspection)["submit_latitude"] == nil)
    }

    @Test("a hook that throws rolls the whole submit back: the draft stays a draft with no score")
    func failingHookRollsBack() throws {
        let world = try InspectionFixture(hook: RecordingHook(failing: true))
        let draft = try world.answeredDraft()
        #expect(throws: InspectionsError(.invalidState, "hook refused")) {
            try world.service.submit(localID: draft.localID)
        }
        let stored = try world.service.inspection(localID: draft.localID)
        #expect(stored.status == .draft)
        #expect(stored.overallScore == nil)
        #expect(stored.completedAt == nil)
    }

    @Test("the pinned schema is used after the template changes and after it disappears")
    func pinnedSchema() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let changed: JSONValue = [
            ["id": 7, "type": "text", "label": "New required", "row": 1, "col": 1, "required": true]
        ]
        try world.seedReference(schema: changed)
        try world.service.answer(localID: draft.localID, fieldID: "2", arguments: ["5"])
        try world.service.answer(localID: draft.localID, fieldID: "3", arguments: ["Fail"])
        try world.seedReference(schema: [], templates: [])
        #expect(try world.reference.template(id: 3) == nil)
        let result = try world.service.submit(localID: draft.localID)
        #expect(result.inspection.overallScore == 50)
        #expect(result.inspection.schemaSnapshot == restroomSchema)
    }

    @Test("a submitted inspection cannot be answered, saved or deleted")
    func submittedIsFrozen() throws {
        let world = try InspectionFixture()
        let draft = try world.answeredDraft()
        _ = try world.service.submit(localID: draft.localID)
        for action in [
            { try world.service.answer(localID: draft.localID, fieldID: "5", arguments: ["x"]) },
            { try world.service.save(localID: draft.localID) },
            { try world.service.deleteDraft(localID: draft.localID) },
        ] as [() throws -> Void] {
            let error = #expect(throws: InspectionsError.self) { try action() }
            #expect(error?.kind == .notADraft)
        }
        #expect(try world.service.list().count == 1)
    }

    @Test("delete-draft removes only the draft and calls the deletion hooks in its transaction")
    func deleteDraft() throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let other = try world.service.start(StartRequest(templateID: 3, facilityID: 21))
        try world.service.deleteDraft(localID: draft.localID)
        #expect(try world.service.list().map(\.localID) == [other.localID])
        #expect(world.hook.all == ["deleting local-1"])
        #expect(throws: InspectionsError.self) { try world.service.deleteDraft(localID: "nope") }
    }

    @Test("the status badge map of seed 000 §11")
    func badges() {
        #expect(InspectionBadge(status: .draft, syncStatus: .failed) == .draft)
        #expect(InspectionBadge(status: .completed, syncStatus: .pending).label == "Pending Sync")
        #expect(InspectionBadge(status: .completed, syncStatus: .pending).colour == "orange")
        #expect(InspectionBadge(status: .completed, syncStatus: .synced).label == "Completed")
        #expect(InspectionBadge(status: .completed, syncStatus: .failed).label == "Sync Failed")
        #expect(InspectionBadge.draft.colour == "blue")
        #expect(InspectionBadge.syncFailed.colour == "red")
    }
}

@Suite("Parent follow-up clearing (seed 000 §14, rule 15)")
struct FollowUpClearingTests {
    /// A completed, flagged parent at facility 11 with server id `serverID`.
    func flaggedParent(_ world: InspectionFixture, serverID: Int? = nil) throws -> Inspection {
        let parent = try world.answeredDraft()
        _ = try world.service.submit(localID: parent.localID)
        if let serverID { try world.store.markSynced(localID: parent.localID, serverID: serverID, at: world.clock.now) }
        try world.store.setFollowUp(localID: parent.localID, required: true, note: "redo")
        return parent
    }

    func reinspection(_ world: InspectionFixture, parentLocal: String? = nil, parentServer: Int? = nil) throws
        -> Inspection
    {
        let draft = try world.service.start(
            StartRequest(
                templateID: 3, facilityID: 11, parentInspectionLocalID: parentLocal,
                parentInspectionServerID: parentServer))
        try world.service.answer(localID: draft.localID, fieldID: "2", arguments: ["5"])
        try world.service.answer(localID: draft.localID, fieldID: "3", arguments: ["Pass"])
        return draft
    }

    @Test("step 1: the parent is found by its local id")
    func byLocalID() throws {
        let world = try InspectionFixture()
        let parent = try flaggedParent(world)
        let child = try reinspection(world, parentLocal: parent.localID)
        #expect(try world.service.submit(localID: child.localID).followUp == .clearedByLocalID(parent.localID))
        #expect(try world.service.inspection(localID: parent.localID).followUpRequired == false)
    }

    @Test("step 2: the parent is found by its server id")
    func byServerID() throws {
        let world = try InspectionFixture()
        let parent = try flaggedParent(world, serverID: 501)
        let child = try reinspection(world, parentServer: 501)
        #expect(try world.service.submit(localID: child.localID).followUp == .clearedByServerID(parent.localID))
        #expect(try world.service.inspection(localID: parent.localID).followUpRequired == false)
    }

    @Test("step 3: the only flagged inspection of the same template and facility is cleared")
    func uniqueFallback() throws {
        let world = try InspectionFixture()
        let parent = try flaggedParent(world)
        let child = try reinspection(world, parentServer: 999)
        #expect(
            try world.service.submit(localID: child.localID).followUp == .clearedByTemplateAndFacility(parent.localID))
    }

    @Test("rule 15: with two flagged candidates the fallback refuses and clears neither")
    func ambiguousFallback() throws {
        let world = try InspectionFixture()
        let first = try flaggedParent(world)
        let second = try flaggedParent(world)
        let child = try reinspection(world, parentServer: 999)
        #expect(try world.service.submit(localID: child.localID).followUp == .ambiguous(candidates: 2))
        #expect(try world.service.inspection(localID: first.localID).followUpRequired == true)
        #expect(try world.service.inspection(localID: second.localID).followUpRequired == true)
    }

    @Test("a local parent found by server id ends the search: another flagged inspection is never cleared by fallback")
    func foundParentStopsFallback() throws {
        let world = try InspectionFixture()
        let parent = try world.answeredDraft()
        _ = try world.service.submit(localID: parent.localID)
        try world.store.markSynced(localID: parent.localID, serverID: 501, at: world.clock.now)
        let other = try flaggedParent(world)
        let child = try reinspection(world, parentServer: 501)
        #expect(try world.service.submit(localID: child.localID).followUp == .clearedByServerID(parent.localID))
        #expect(try world.service.inspection(localID: other.localID).followUpRequired == true)
    }

    @Test("an inspection that is not a re-inspection never clears anyone's flag")
    func notAReinspection() throws {
        let world = try InspectionFixture()
        let parent = try flaggedParent(world)
        let other = try world.answeredDraft()
        #expect(try world.service.submit(localID: other.localID).followUp == .notAReinspection)
        #expect(try world.service.inspection(localID: parent.localID).followUpRequired == true)
    }
}

@Suite("Draft autosave (seed 001 §11.2)")
struct DraftAutosaveTests {
    /// Yields until the autosaver waits on the clock again.
    func waitForSleeper(_ clock: ManualClock) async {
        while clock.sleeperCount == 0 { await Task.yield() }
    }

    @Test("the open draft is saved every 30 seconds of the injected clock, and not before")
    func savesEveryThirtySeconds() async throws {
        let world = try InspectionFixture()
        let draft = try world.service.start(StartRequest(templateID: 3, facilityID: 11))
        let autosaver = DraftAutosaver(service: world.service, clock: world.clock)
        await autosaver.start(openDraft: { draft.localID })
        await waitForSleeper(world.clock)
        world.clock.advance(by: 29)
        #expect(await autosaver.saveCount == 0)
        world.clock.advance(by: 1)
        while await autosaver.saveCount == 0 { await Task.yield() }
        #expect(try world.service.inspection(localID: draft.localID).updatedAt == world.clock.now)
        await autosaver.stop()
    }
}
