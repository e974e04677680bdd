import Foundation
import JQCKit
import JQCTestSupport
import Testing

@Suite("jqc-shell reference and inspection commands (issue 7)")
struct InspectionCommandTests {
    let login = "login alex --password inspect-demo; sync"

    @Test("facilities prints each facility once with the SHELL.md keys; contracts, areas and templates read the cache")
    func referenceCommands() throws {
        let result = try ShellHarness().run([
            "--json", "-c", "\(login); facilities; contracts; areas 11; templates; facilities --contract 2",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.jsonLines
        let facilities = try #require(lines[2]["data"]?["facilities"]?.arrayValue)
        #expect(facilities.compactMap { $0["id"]?.intValue }.sorted() == [11, 12, 21, 22])
        #expect(
            facilities.first { $0["id"] == 21 } == [
                "id": 21, "name": "Riverside Clinic A", "project_id": 2,
                "project_name": "Riverside Medical Offices", "is_active": true,
            ])
        #expect(lines[2]["data"]?["phase"] == "content")
        #expect(lines[2]["data"]?["stale"] == false)
        #expect(lines[3]["data"]?["contracts"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [1, 2])
        #expect(lines[4]["data"]?["areas"]?.arrayValue?.compactMap { $0["id"]?.intValue }.sorted() == [111, 112, 113])
        #expect(lines[5]["data"]?["templates"]?.arrayValue?.allSatisfy { $0["is_active"] == true } == true)
        #expect(lines[6]["data"]?["facilities"]?.arrayValue?.compactMap { $0["id"]?.intValue }.sorted() == [21, 22])
    }

    @Test("start, form, a refused submit, answer, submit: JSON keys as SHELL.md says, and the next run continues it")
    func inspectionFlow() throws {
        let harness = ShellHarness()
        let first = try harness.run([
            "--json", "-c", "\(login); start --template 3 --facility 11 --area 111; form; submit",
        ])
        #expect(first.status == 1)
        let lines = first.jsonLines
        let localID = try #require(lines[2]["data"]?["local_id"]?.stringValue)
        let form = lines[3]["data"]
        #expect(form?["local_id"] == .string(localID))
        #expect(form?["fields"]?.arrayValue?.first?["id"] == "1")
        #expect(form?["fields"]?.arrayValue?.count == 14)
        #expect(form?["answers"] == [:])
        #expect(lines[4]["ok"] == false)
        #expect(lines[4]["error"] == "Submit refused: answer the required field \"Floors clean and dry\" first.")

        let second = try harness.run(["--json", "-c", "answer 2 4; form; submit --gps 40.71,-74.01; inspections"])
        #expect(second.status == 0, "\(second.stderr)")
        let next = second.jsonLines
        #expect(next[0]["data"]?["value"] == "4")
        #expect(next[1]["data"]?["answers"] == ["2": "4"])
        #expect(next[2]["data"]?["local_id"] == .string(localID))
        #expect(next[2]["data"]?["inspection"]?["badge"] == "Pending Sync")
        #expect(next[3]["data"]?["inspections"]?.arrayValue?.first?["local_id"] == .string(localID))

        let third = try harness.run(["--json", "-c", "sync; inspections; status"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.jsonLines[1]["data"]?["inspections"]?.arrayValue?.first?["badge"] == "Completed")
        #expect(third.jsonLines[2]["data"]?["pending"]?["inspections"] == 0)
    }

    @Test("delete-draft needs --yes, deletes drafts only, and refuses a submitted inspection with a sentence")
    func deleteDraft() throws {
        let harness = ShellHarness()
        let started = try harness.run([
            "--json", "-c", "\(login); start --template 5 --facility 21; start --template 3 --facility 11",
        ])
        #expect(started.status == 0, "\(started.stderr)")
        let draft = try #require(started.jsonLines[2]["data"]?["local_id"]?.stringValue)
        let refused = try harness.run(["--json", "-c", "delete-draft \(draft)"])
        #expect(refused.status == 1)
        #expect(
            refused.jsonLines.first?["error"]?.stringValue?.hasPrefix("Deleting a draft cannot be undone; add --yes")
                == true)
        let deleted = try harness.run(["--json", "-c", "delete-draft \(draft) --yes; drafts"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.jsonLines[1]["data"]?["drafts"]?.arrayValue?.count == 1)
        let submitted = try harness.run(["--json", "-c", "answer 2 5; submit"])
        let id = try #require(submitted.jsonLines[1]["data"]?["local_id"]?.stringValue)
        let frozen = try harness.run(["--json", "-c", "delete-draft \(id) --yes"])
        #expect(frozen.status == 1)
        #expect(
            frozen.jsonLines.first?["error"]?.stringValue?.contains("only drafts can be changed or deleted") == true)
    }

    @Test("clear-cache empties reference data but keeps inspections; offline history fails with a sentence")
    func clearCacheAndOfflineHistory() throws {
        let harness = ShellHarness()
        let result = try harness.run([
            "--json", "-c",
            "\(login); start --template 3 --facility 11; clear-cache; facilities; inspections; offline; history",
        ])
        #expect(result.status == 1)
        let lines = result.jsonLines
        #expect(lines[4]["data"]?["facilities"] == [])
        #expect(lines[4]["data"]?["phase"] == "loading")
        #expect(lines[5]["data"]?["inspections"]?.arrayValue?.count == 1)
        #expect(lines[7]["ok"] == false)
        #expect(lines[7]["error"]?.stringValue?.hasPrefix("History is online only:") == true)
    }
}
