import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// Shell JSON comes from `Encodable` view types (issue 16 "Typed edges"): snake_case keys from the Swift names,
/// every documented key present (an absent value is `null`, never a missing key), integers as integers.
@Suite("Shell JSON from Encodable view types")
struct ViewJSONTests {
    /// `issue show`'s keys (SHELL.md "issue show").
    static let issueKeys: Set<String> = [
        "local_id", "server_id", "inspection_local_id", "inspection_server_id", "facility_id", "facility_name",
        "area_id", "area_name", "severity", "description", "status", "sync_status", "sync_error", "sync_attempts",
        "photo_local_paths", "photo_server_paths", "photo_server_urls", "result_photos", "photo_section", "photos",
        "result_notes", "verified_at", "verification_note", "reported_by_name", "assigned_to_name", "handler_type",
        "handler_label", "facility_handler_name", "facility_handler_contact", "facility_handler_notes",
        "vendor_name", "vendor_contact", "vendor_notes", "created_at",
    ]

    @Test("issue show, facilities, history and inspections: every key snake_case, absent values null, numbers typed")
    func views() throws {
        let run = try ShellHarness().run([
            "--json", "-c",
            "login alex --password inspect-demo; sync; issue show 49; facilities; history; "
                + "start --template 3 --facility 11; inspections",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.jsonLines
        let issue = try #require(lines[2]["data"]?.objectValue)
        #expect(Set(issue.keys) == Self.issueKeys)
        #expect(issue["server_id"] == 49)
        #expect(issue["facility_id"] == 21)
        #expect(issue["inspection_server_id"] == .null)  // a standalone issue: null, not missing
        #expect(issue["facility_handler_name"] == .null)
        #expect(issue["handler_label"] == "Vendor: Dryer Pros")
        #expect(issue["photo_server_urls"] == [])
        let facility = try #require(lines[3]["data"]?["facilities"]?.arrayValue?.first { $0["id"] == 11 })
        #expect(
            Set(facility.objectValue?.keys.map { $0 } ?? []) == [
                "id", "name", "project_id", "project_name", "is_active",
            ])
        let row = try #require(lines[4]["data"]?["inspections"]?.arrayValue?.first?.objectValue)
        #expect(
            Set(row.keys) == [
                "id", "local_id", "template_name", "facility_name", "area_name", "inspection_date", "overall_score",
                "follow_up_required",
            ])
        if case .double = row["overall_score"] {} else { #expect(row["overall_score"] == .null) }
        let draft = try #require(lines[6]["data"]?["inspections"]?.arrayValue?.first?.objectValue)
        #expect(draft["area_id"] == .null)
        #expect(draft["overall_score"] == .null)
        #expect(draft["badge_colour"]?.stringValue?.isEmpty == false)
        #expect(draft["template_id"] == 3)
    }
}
