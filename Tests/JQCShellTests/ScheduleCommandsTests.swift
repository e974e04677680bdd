import Foundation
import JQCKit
import JQCTestSupport
import Testing

private let signIn = "login alex --password inspect-demo; sync"

@Suite("jqc-shell scheduled, follow-ups, schedule-follow-up and the linked start forms (issue 9)")
struct ScheduleCommandsTests {
    @Test("scheduled lists by due date with exactly the SHELL.md keys; instructions trimmed, null when blank")
    func scheduledJSON() throws {
        let result = try ShellHarness().run(["--json", "-c", "\(signIn); scheduled"])
        #expect(result.status == 0)
        let data = try #require(result.jsonLines.last?["data"])
        let items = try #require(data["scheduled"]?.arrayValue)
        #expect(items.map { $0["id"] } == [902, 901, 904, 903])
        #expect(
            items.allSatisfy { item in
                Set(item.objectValue?.keys.map { $0 } ?? []) == [
                    "id", "facility_id", "template_id", "due_date", "is_overdue", "frequency", "instructions",
                ]
            })
        #expect(
            items.map { $0["instructions"] ?? .string("missing") } == [
                JSONValue.null, "Check the 1st floor restrooms after the 7am clean.", "Follow-up on wet floors", .null,
            ])
        #expect(items.map { $0["frequency"] } == ["once", "daily", "once", "weekly"])
        #expect(items[0]["is_overdue"] == true)
        #expect(items[0]["facility_id"] == 21)
        #expect(items[0]["template_id"] == 4)
    }

    @Test("follow-ups lists the outstanding requests with exactly the SHELL.md keys")
    func followUpsJSON() throws {
        let result = try ShellHarness().run(["--json", "-c", "\(signIn); follow-ups"])
        #expect(result.status == 0)
        let items = try #require(result.jsonLines.last?["data"]?["follow_ups"]?.arrayValue)
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(
            Set(item.objectValue?.keys.map { $0 } ?? []) == [
                "id", "facility_id", "template_id", "note", "inspection_date",
            ])
        #expect(item["id"] == 501)
        #expect(item["facility_id"] == 11)
        #expect(item["template_id"] == 3)
        #expect(item["note"] == "Re-check floors after the noon clean")
    }

    @Test(
        "start --follow-up links parent and planned schedule, prefilled; start --schedule links the schedule")
    func linkedStarts() throws {
        let result = try ShellHarness().run([
            "--json", "-c", "\(signIn); start --follow-up 501; start --schedule 901 --area 112",
        ])
        #expect(result.status == 0)
        let followUp = try #require(result.jsonLines[2]["data"])
        #expect(followUp["parent_inspection_id"] == 501)
        #expect(followUp["scheduled_inspection_id"] == 904)
        #expect(followUp["prefilled"] == ["10", "13", "14", "6", "7", "8"])
        let scheduled = try #require(result.jsonLines[3]["data"])
        #expect(scheduled["scheduled_inspection_id"] == 901)
        #expect(scheduled["parent_inspection_id"] == .null)
        #expect(scheduled["inspection"]?["area_id"] == 112)
    }

    @Test("start --schedule of a follow-up schedule says what it prefilled and from which inspection (issue 18)")
    func scheduledPrefillSaid() throws {
        let json = try ShellHarness().run(["--json", "-c", "\(signIn); start --schedule 904"])
        #expect(json.status == 0)
        let data = try #require(json.jsonLines[2]["data"])
        #expect(data["prefilled_from"] == "501")
        #expect(data["prefilled"] == ["10", "13", "14", "6", "7", "8"])
        let text = try ShellHarness().run(["-c", "\(signIn); start --schedule 904"])
        #expect(text.stdout.contains("prefilled 6 answers from inspection 501"))
        let plain = try ShellHarness().run(["--json", "-c", "\(signIn); start --schedule 901"])
        #expect(plain.jsonLines[2]["data"]?["prefilled_from"] == .null)
    }

    @Test("schedule-follow-up is refused offline with a sentence; online it plans once and re-dates")
    func scheduleFollowUpOnlineOnly() throws {
        let harness = ShellHarness()
        let offline = try harness.run(["--json", "-c", "\(signIn); offline; schedule-follow-up 501 2030-01-02"])
        #expect(offline.status == 1)
        #expect(offline.jsonLines.last?["ok"] == false)
        #expect(
            offline.jsonLines.last?["error"]?.stringValue?.hasPrefix(
                "Scheduling a follow-up needs the server and this device is offline; nothing was saved.") == true)
        let online = try harness.run([
            "--json", "-c",
            "online; schedule-follow-up 501 2030-01-02 \"Bring mats\"; schedule-follow-up 501 2030-01-03; scheduled",
        ])
        #expect(online.status == 0)
        let first = try #require(online.jsonLines[1]["data"]?["schedule"])
        let second = try #require(online.jsonLines[2]["data"]?["schedule"])
        #expect(first["id"] == second["id"])
        #expect(second["due_date"] == "2030-01-03")
        let listed = try #require(online.jsonLines[3]["data"]?["scheduled"]?.arrayValue)
        #expect(listed.filter { $0["id"] == first["id"] }.map { $0["due_date"] } == ["2030-01-03"])
        #expect(listed.filter { $0["id"] == first["id"] }.map { $0["instructions"] } == ["Bring mats"])
    }

    @Test("a draft started from a schedule shows the trimmed instructions at start and above its form")
    func instructionsAboveForm() throws {
        let result = try ShellHarness().run(["-c", "\(signIn); start --schedule 901; form --stacked"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("Instructions:") }
        #expect(lines == Array(repeating: "Instructions: Check the 1st floor restrooms after the 7am clean.", count: 2))
    }

    @Test("a start --template/--facility draft submitted in a later run fulfils the overdue one-time schedule")
    func handPickedFulfilsAcrossRuns() throws {
        let harness = ShellHarness()
        #expect(try harness.run(["--json", "-c", signIn]).status == 0)
        let submitted = try harness.run([
            "--json", "-c", "start --template 4 --facility 21; answer 109 yes; submit; scheduled",
        ])
        #expect(submitted.status == 0)
        #expect(submitted.jsonLines[2]["data"]?["fulfils_schedule"] == 902)  // rule 69, said (issue 18)
        let hidden = try #require(submitted.jsonLines.last?["data"]?["scheduled"]?.arrayValue)
        #expect(hidden.map { $0["id"] } == [901, 904, 903])
        let synced = try harness.run(["--json", "-c", "sync; scheduled"])
        #expect(synced.status == 0)
        #expect(synced.jsonLines.last?["data"]?["scheduled"]?.arrayValue?.map { $0["id"] } == [901, 904, 903])
    }
}
