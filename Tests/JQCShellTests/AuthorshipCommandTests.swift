import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// SHELL.md, issue 20: another inspector's unsynced work on a shared device is shown apart, never sent
/// with the signed-in inspector's token, and logout and a server switch say what stays.
@Suite("Another inspector's unsynced work in the shell (issue 20)")
struct AuthorshipCommandTests {
    @Test("alex's offline issue waits while sam syncs; status, sync, logout and server say so; alex's sync sends it")
    func sharedDevice() throws {
        let harness = ShellHarness()
        let setup = try harness.run(["--json", "-c", "login alex --password inspect-demo; sync; offline"])
        #expect(setup.status == 0, "\(setup.stdout)\(setup.stderr)")
        let made = try harness.run([
            "--json", "-c",
            #"issue new --facility 21 low "Dust on the sills" --photo /work/shared/fixtures/photos/Canon_40D.jpg"#,
        ])
        let localID = try #require(made.jsonLines.first?["data"]?["local_id"]?.stringValue, "\(made.stdout)")
        let logout = try harness.run(["-c", "logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout.contains("Signed out. This device keeps 2 unsynced item(s) of yours"), "\(logout.stdout)")

        let asSam = try harness.run(["--json", "-c", "online; login sam --password inspect-demo; sync; status"])
        #expect(asSam.status == 0, "\(asSam.stdout)\(asSam.stderr)")
        let sync = try #require(asSam.jsonLines.dropLast().last?["data"])
        let waiting = try #require(sync["others_waiting"]?.arrayValue)
        #expect(waiting.count == 1)
        #expect(waiting.first?["username"] == "alex")
        #expect(waiting.first?["count"] == 2)
        #expect(waiting.first?["reason"] == "waits for alex to sign in")
        #expect(asSam.jsonLines.last?["data"]?["others_waiting"] == sync["others_waiting"])
        let text = try harness.run(["-c", "status"]).stdout
        #expect(text.contains("waiting: 2 items wait for alex"), "\(text)")
        let refused = try harness.run(["-c", "server primary"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("2 items wait for alex"), "\(refused.stderr)")

        // Nobody will sign in again? Everything unsynced can be taken off the device, photos included.
        let exportDirectory = TemporaryDirectory(prefix: "jqc-export")
        let target = exportDirectory.url.appendingPathComponent("out").path
        let exported = try harness.run(["--json", "-c", "export-pending \(target)"])
        #expect(exported.status == 0, "\(exported.stdout)\(exported.stderr)")
        #expect(exported.jsonLines.first?["data"]?["photos"] == 1)
        let document = try JSONValue.parse(
            try String(contentsOf: URL(fileURLWithPath: target + "/pending.json"), encoding: .utf8))
        let rows = try #require(document["tables"]?["issues"]?.arrayValue)
        #expect(rows.map { $0["local_id"] } == [.string(localID)])
        #expect(rows.first?["author_username"] == "alex")
        let photo = try #require(document["tables"]?["pending_photos"]?.arrayValue?.first?["file_name"]?.stringValue)
        let copied = try Data(contentsOf: URL(fileURLWithPath: target + "/photos/" + photo))
        #expect(copied.count > 1000)
        let again = try harness.run(["-c", "export-pending \(target)"])
        #expect(again.status != 0)
        #expect(again.stderr.contains("is not empty"), "\(again.stderr)")

        let asAlex = try harness.run([
            "--json", "-c", "logout; login alex --password inspect-demo; sync; issue show \(localID)",
        ])
        #expect(asAlex.status == 0, "\(asAlex.stdout)\(asAlex.stderr)")
        #expect(asAlex.jsonLines.dropLast().last?["data"]?["others_waiting"] == .array([]))
        #expect(asAlex.jsonLines.last?["data"]?["sync_status"] == "synced", "\(asAlex.stdout)")
    }
}

@Suite("drafts and discard on a shared device (issue 20)")
struct AuthorshipDraftsTests {
    @Test(
        "sam sees only his drafts (--all: alex's, read-only); discarding alex's failed issue needs --yes and names alex"
    )
    func draftsAndDiscard() throws {
        let serverData = TemporaryDirectory(prefix: "jqc-devserver")
        let server = try ChildProcess(
            TestPaths.productsDirectory.appendingPathComponent("jqc-devserver"),
            ["--port", "0", "--admin", "--data-dir", serverData.url.path])
        defer { server.kill(SIGTERM) }
        let baseURL = String(server.readLine()?.dropFirst("listening on ".count) ?? "")
        let harness = ShellHarness()
        func run(_ arguments: [String]) throws -> ShellHarness.Result {
            try harness.run(["--server", baseURL] + arguments)
        }
        let made = try run([
            "--json", "-c",
            "login alex --password inspect-demo; sync; start --template 3 --facility 11 --area 111; "
                + #"issue new --facility 21 low "Dust on the sills""#,
        ])
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        let draft = try #require(made.jsonLines[2]["data"]?["local_id"]?.stringValue, "\(made.stdout)")
        let issue = try #require(made.jsonLines[3]["data"]?["local_id"]?.stringValue, "\(made.stdout)")
        let fault = TestProcess()
        fault.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        fault.arguments = [
            "-s", "-o", "/dev/null", "-X", "POST", baseURL + "/__admin/faults", "-H", "Content-Type: application/json",
            "--data-binary", #"{"method":"POST","path_prefix":"/api/v1/issues","mode":"status","status":422}"#,
        ]
        try fault.run()
        fault.waitUntilExit()
        #expect(try run(["-c", "sync; logout"]).status == 0)

        let asSam = try run(["--json", "-c", "login sam --password inspect-demo; drafts; drafts --all"])
        #expect(asSam.status == 0, "\(asSam.stdout)\(asSam.stderr)")
        let unopened = try run(["-c", "answer 2 4"])  // alex's open draft is not sam's
        #expect(unopened.status != 0)
        #expect(unopened.stderr.contains("No inspection is open"), "\(unopened.stderr)")
        #expect(asSam.jsonLines[1]["data"]?["drafts"] == .array([]))
        #expect(asSam.jsonLines[1]["data"]?["others_hidden"] == 1)
        let all = try #require(asSam.jsonLines[2]["data"]?["drafts"]?.arrayValue)
        #expect(all.map { $0["local_id"] } == [.string(draft)])
        #expect(all.first?["author"] == "alex")
        #expect(all.first?["read_only"] == true)
        let text = try run(["-c", "drafts"]).stdout
        #expect(text.contains("1 draft(s) of other inspectors on this device: drafts --all"), "\(text)")
        let opened = try run(["-c", "open \(draft)"])
        #expect(opened.status != 0)
        #expect(opened.stderr.contains("is alex's; it is read-only for you"), "\(opened.stderr)")
        let refused = try run(["-c", "issue discard \(issue)"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("was made by alex, not by you"), "\(refused.stderr)")
        let discarded = try run(["--json", "-c", "issue discard \(issue) --yes"])
        #expect(discarded.status == 0, "\(discarded.stdout)\(discarded.stderr)")
        #expect(discarded.jsonLines.first?["data"]?["author"] == "alex")
    }
}
