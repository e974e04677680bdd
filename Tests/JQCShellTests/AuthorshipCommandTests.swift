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
        let made = try harness.run(["--json", "-c", #"issue new --facility 21 low "Dust on the sills""#])
        let localID = try #require(made.jsonLines.first?["data"]?["local_id"]?.stringValue, "\(made.stdout)")
        let logout = try harness.run(["-c", "logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout.contains("Signed out. This device keeps 1 unsynced item(s) of yours"), "\(logout.stdout)")

        let asSam = try harness.run(["--json", "-c", "online; login sam --password inspect-demo; sync; status"])
        #expect(asSam.status == 0, "\(asSam.stdout)\(asSam.stderr)")
        let sync = try #require(asSam.jsonLines.dropLast().last?["data"])
        let waiting = try #require(sync["waiting"]?.arrayValue)
        #expect(waiting.count == 1)
        #expect(waiting.first?["username"] == "alex")
        #expect(waiting.first?["count"] == 1)
        #expect(waiting.first?["reason"] == "waits for alex to sign in")
        #expect(asSam.jsonLines.last?["data"]?["waiting"] == sync["waiting"])
        let text = try harness.run(["-c", "status"]).stdout
        #expect(text.contains("waiting: 1 item waits for alex"), "\(text)")
        let refused = try harness.run(["-c", "server primary"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("1 item waits for alex"), "\(refused.stderr)")

        let asAlex = try harness.run([
            "--json", "-c", "logout; login alex --password inspect-demo; sync; issue show \(localID)",
        ])
        #expect(asAlex.status == 0, "\(asAlex.stdout)\(asAlex.stderr)")
        #expect(asAlex.jsonLines.dropLast().last?["data"]?["waiting"] == .array([]))
        #expect(asAlex.jsonLines.last?["data"]?["sync_status"] == "synced", "\(asAlex.stdout)")
    }
}
