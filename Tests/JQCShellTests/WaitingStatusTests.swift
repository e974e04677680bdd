import Foundation
import JQCKit
import Testing

private let signIn = "login alex --password inspect-demo; sync"

/// Issue 18: a waiting item says why in `sync` and `status`.
@Suite("jqc-shell: why an item waits (issue 18)")
struct WaitingStatusTests {
    @Test("an issue flagged on a draft: sync's deferred_reason is set and status lists it waiting, with what to do")
    func draftParentWaits() throws {
        let result = try ShellHarness().run([
            "--json", "-c",
            "\(signIn); start --template 3 --facility 11 --area 111; flag low \"Scuffed wall\"; sync; status",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let draft = try #require(result.jsonLines[2]["data"]?["local_id"]?.stringValue)
        let reason = "waits for inspection \(draft) to be submitted — 'open \(draft)', then 'submit'"
        let issues = result.jsonLines[4]["data"]?["stages"]?.arrayValue?.first { $0["name"] == "issues" }
        #expect(issues?["deferred"] == 1)
        #expect(issues?["deferred_reason"] == .string(reason))
        let waiting = try #require(result.jsonLines[5]["data"]?["waiting"]?.arrayValue)
        #expect(waiting.map { $0["kind"] } == ["issue"])
        #expect(waiting.first?["reason"] == .string(reason))
    }
}
