// A test helper for the inspections crash test (issue 7; never shipped to inspectors).
//
//   jqc-inspections-probe submit-loop DIR — forever: start a draft, answer it, submit it (score, status,
//                                           outbox state and a hook's row in one transaction); prints
//                                           "submitted N" after each submit commits (flushed).
//   jqc-inspections-probe check DIR       — reopens the store and prints "ok <drafts> <completed>", or
//                                           "violation <sentence>" lines and exits 1.
import Foundation
import JQCFacilities
import JQCForms
import JQCInspections
import JQCKit
import JQCStorage

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("jqc-inspections-probe: \(message)\n".utf8))
    exit(64)
}

/// Writes the hook's row inside the submit transaction.
struct ProbeHook: InspectionSubmitHook {
    func inspectionSubmitted(_ inspection: Inspection, db: Database) throws {
        try ProbeStore.recordSubmitted(db, localID: inspection.localID)
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: submit-loop DIR | check DIR") }
let directory = URL(fileURLWithPath: arguments[2])
let queue: DatabaseQueue
do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    queue = try DatabaseQueue(path: directory.appendingPathComponent("jqc.sqlite").path)
    var migrator = DatabaseMigrator()
    FacilitiesSchema.register(in: &migrator)
    InspectionsSchema.register(in: &migrator)
    ProbeStore.register(in: &migrator)
    try migrator.migrate(queue)
} catch { fail("\(error)") }

let schema: JSONValue = [
    ["id": 1, "type": "rating", "label": "Floors", "row": 1, "col": 1, "colSpan": 6, "required": true],
    ["id": 2, "type": "pass_fail", "label": "Soap", "row": 1, "col": 7, "colSpan": 6],
    ["id": 3, "type": "text", "label": "Notes", "row": 2, "col": 1, "colSpan": 12],
]

switch arguments[1] {
case "submit-loop":
    let reference = ReferenceStore(queue: queue)
    do {
        try reference.apply(
            ReferenceReply(
                facilities: [Facility(id: 11, name: "Main", projectID: 1, projectName: "Contract")], areas: [],
                templates: [
                    InspectionTemplate(id: 3, name: "QC", formSchema: schema, schemaHash: FormSchema(json: schema).hash)
                ]),
            now: Date(), referencedFacilityIDs: { _ in [] })
    } catch { fail("\(error)") }
    let service = InspectionService(
        store: InspectionStore(queue: queue), reference: reference, clock: SystemClock(),
        submitHooks: [ProbeHook()])
    var count = 0
    while true {
        do {
            let draft = try service.start(StartRequest(templateID: 3, facilityID: 11))
            try service.answer(localID: draft.localID, fieldID: "1", arguments: [String(count % 5 + 1)])
            try service.answer(localID: draft.localID, fieldID: "2", arguments: [count % 2 == 0 ? "Pass" : "Fail"])
            try service.answer(localID: draft.localID, fieldID: "3", arguments: [String(repeating: "n", count: 500)])
            _ = try service.submit(localID: draft.localID, location: Coordinate(latitude: 40.7, longitude: -74))
        } catch { fail("\(error)") }
        count += 1
        say("submitted \(count)")
    }
case "check":
    do {
        let (drafts, completed, violations) = try ProbeStore.check(queue)
        guard violations.isEmpty else {
            for violation in violations { say("violation \(violation)") }
            exit(1)
        }
        say("ok \(drafts) \(completed)")
    } catch { fail("\(error)") }
default:
    fail("unknown command \(arguments[1])")
}
