import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// `../shared/fixtures/photos/hopper.jpg` when ../shared is present (the suite says so when it is absent).
private let hopper: URL? = TestPaths.sharedFixture("photos/hopper.jpg").flatMap {
    FileManager.default.fileExists(atPath: $0.path) ? $0 : nil
}

@Suite("jqc-shell photos and issues (issue 8)")
struct IssueCommandTests {
    let login = "login alex --password inspect-demo; sync"

    @Test("issues lists pulled issues without resolved ones (rule 48); --all adds them; issue show has every field")
    func listAndShow() throws {
        let result = try ShellHarness().run(["--json", "-c", "\(login); issues; issues --all; issue show 48"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.jsonLines
        let open = try #require(lines[2]["data"]?["issues"]?.arrayValue)
        #expect(open.compactMap { $0["server_id"]?.intValue }.sorted() == [48, 49])
        let keys = Set((open[0].objectValue ?? [:]).keys)
        #expect(
            keys.isSuperset(of: [
                "local_id", "server_id", "severity", "status", "description", "sync_status",
            ]))
        #expect(
            lines[3]["data"]?["issues"]?.arrayValue?.compactMap { $0["server_id"]?.intValue }.sorted()
                == [48, 49, 50])
        let show = try #require(lines[4]["data"])
        #expect(show["server_id"] == 48)
        #expect(show["severity"] == "high")
        #expect(
            show["photo_server_paths"]
                == ["uploads/issue_photos/seed-48-a.jpg", "uploads/issue_photos/seed-48-b.jpg"])  // rule 33
        #expect(show["result_photos"] == ["uploads/issue_photos/seed-48-fixed.jpg"])
        #expect(show["photo_local_paths"] == [])
        #expect(show["photo_section"] == "server")
        #expect(show["handler_label"] == "Facility: Courthouse Maintenance")
        #expect(show["inspection_local_id"] == "")
    }

    @Test(
        "flag copies facility and area; issue new is standalone; the flagged one syncs after its inspection"
    )
    func flagAndNew() throws {
        let harness = ShellHarness()
        let result = try harness.run([
            "--json", "-c",
            "\(login); start --template 3 --facility 11 --area 112; flag HIGH \"Leak under sink 2\"; "
                + "issue new --facility 21 --area 212 medium \"Dryer broken\"; issue show 1; status",
        ])
        #expect(result.status == 1)  // `issue show 1`: no such issue
        let lines = result.jsonLines
        let flagged = try #require(lines[3]["data"])
        let inspectionID = try #require(lines[2]["data"]?["local_id"])
        #expect(flagged["issue"]?["inspection_local_id"] == inspectionID)
        #expect(flagged["issue"]?["severity"] == "high")
        #expect(flagged["issue"]?["sync_status"] == "pending")
        #expect(flagged["area_id"] == 112)  // rule 51
        let standalone = try #require(lines[4]["data"])
        #expect(standalone["issue"]?["inspection_local_id"] == "")  // rule 44
        #expect(standalone["area_id"] == 212)
        #expect(lines[5]["error"] == "There is no issue 1 on this device; see 'issues --all'.")

        let next = try harness.run(["--json", "-c", "sync; status; answer 2 4; submit; sync; issues"])
        #expect(next.status == 0, "\(next.stderr)")
        // The standalone issue went in the first sync; the flagged one waited for its inspection (rule 11).
        #expect(next.jsonLines[1]["data"]?["pending"]?["issues"] == 1)
        let issues = try #require(next.jsonLines[5]["data"]?["issues"]?.arrayValue)
        #expect(issues.filter { $0["server_id"] != .null }.count == 4)
        #expect(issues.allSatisfy { $0["sync_status"] == "synced" })
    }

    @Test("status and handler change at once and are sent on sync; comments are online only")
    func editsAndComments() throws {
        let result = try ShellHarness().run([
            "--json", "-c",
            "\(login); issue status 49 resolved; issue handler 49 vendor --name Fixers; issues; sync; "
                + "issue show 49; issue comments 49 --add \"On it\"; offline; issue comments 49",
        ])
        #expect(result.status == 1)
        let lines = result.jsonLines
        #expect(lines[2]["data"]?["status"] == "resolved")
        #expect(lines[3]["data"]?["handler_label"] == "Vendor: Fixers")
        #expect(lines[4]["data"]?["issues"]?.arrayValue?.compactMap { $0["server_id"]?.intValue } == [48])
        #expect(lines[5]["data"]?["stages"]?.arrayValue?.first { $0["name"] == "issue edits" }?["pushed"] == 2)
        #expect(lines[6]["data"]?["status"] == "resolved")
        #expect(lines[6]["data"]?["vendor_name"] == "Fixers")
        #expect(lines[7]["data"]?["comments"]?.arrayValue?.last?["body"] == "On it")
        #expect(lines[9]["ok"] == false)
        #expect(lines[9]["error"]?.stringValue?.hasPrefix("Comments are online only:") == true)
    }

    @Test(
        "photo puts a local:// sentinel in an image field, refuses other fields and files; flag --photo attaches",
        .enabled(if: hopper != nil, "../shared/fixtures/photos/hopper.jpg is absent"))
    func photoCommand() throws {
        let file = try #require(hopper).path
        let harness = ShellHarness()
        let result = try harness.run([
            "--json", "-c",
            "\(login); start --template 3 --facility 11 --area 111; photo 9 \(file); photo 12 \(file); "
                + "flag low \"Stained tile\" --photo \(file) --photo \(file); form; photo 2 \(file)",
        ])
        #expect(result.status == 1)
        let lines = result.jsonLines
        let photo = try #require(lines[3]["data"])
        let sentinel = try #require(photo["sentinel"]?.stringValue)
        #expect(sentinel == "local://photos/\(photo["photo_id"]?.stringValue ?? "").jpg")
        #expect(photo["field_id"] == "9")
        #expect(photo["width"]?.intValue ?? 0 > 0)
        #expect(photo["height"]?.intValue ?? 0 > 0)
        #expect(photo["orientation"] != nil)
        let localPaths = try #require(lines[5]["data"]?["photo_local_paths"]?.arrayValue)
        #expect(localPaths.count == 2)
        let flaggedID = try #require(lines[5]["data"]?["local_id"]?.stringValue)
        #expect(lines[6]["data"]?["answers"]?["9"] == .string(sentinel))
        #expect(
            lines[7]["error"]?.stringValue == "Field \"Floors clean and dry\" (id 2) is a rating field; "
                + "photos go into image or signature fields.")
        let refused = try harness.run(["--json", "-c", "photo 9 /etc/hostname"])
        #expect(refused.status == 1)
        #expect(
            refused.jsonLines.first?["error"]?.stringValue?.hasPrefix("The photo /etc/hostname was refused:")
                == true)

        // Rule 34: a pending issue shows its local photos only.
        let pending = try harness.run(["--json", "-c", "issue show \(flaggedID)"])
        #expect(pending.jsonLines.first?["data"]?["photo_section"] == "local")
        #expect(pending.jsonLines.first?["data"]?["photos"] == .array(localPaths))

        let synced = try harness.run(["--json", "-c", "answer 2 4; submit; sync; form; issues; status"])
        #expect(synced.status == 0, "\(synced.stderr)")
        let answer = synced.jsonLines[3]["data"]?["answers"]?["9"]?.stringValue ?? ""
        #expect(answer.hasPrefix("uploads/inspection_photos/"))
        let left = synced.jsonLines[5]["data"]?["pending"]?.objectValue ?? [:]
        #expect(Set(["photos", "inspections", "issues"]).isSubset(of: left.keys))
        #expect(left.values.allSatisfy { $0 == 0 })
        let shown = try harness.run(["--json", "-c", "issue show \(flaggedID)"])
        let after = try #require(shown.jsonLines.first?["data"])
        #expect(after["photo_section"] == "server")
        #expect(after["photo_local_paths"] == [])
        #expect(after["photo_server_paths"]?.arrayValue?.count == 2)
        #expect(
            after["photos"]?.arrayValue?.allSatisfy { $0.stringValue?.contains("/static/uploads/") == true } == true)
    }
}
