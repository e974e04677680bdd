import Foundation
import JQCKit
import JQCTestSupport
import Testing

@Suite("jqc-shell sessions and servers (issues 4, 5)")
struct ShellSessionTests {
    @Test("a second run continues the first one's state: signed in, airplane mode kept")
    func secondRunContinues() throws {
        let harness = ShellHarness()
        let first = try harness.run(["--json", "-c", "login alex --password inspect-demo; offline"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try harness.run(["--json", "-c", "whoami; status"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.jsonLines[0]["data"]?["signed_in"] == true)
        #expect(second.jsonLines[0]["data"]?["display_name"] == "Alex Rivera")
        #expect(second.jsonLines[1]["data"]?["online"] == false)
        #expect(second.jsonLines[1]["data"]?["forced_offline"] == true)
    }

    @Test("every file the shell writes in the data directory is 0600, credentials included")
    func filesAre0600() throws {
        let harness = ShellHarness()
        let result = try harness.run(["-c", "login alex --password inspect-demo; offline; online"])
        #expect(result.status == 0, "\(result.stderr)")
        let directory = harness.dataDirectory.url
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.contains("credentials"))
        for name in files {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
            let isDirectory = attributes[.type] as? FileAttributeType == .typeDirectory
            #expect(mode == (isDirectory ? 0o700 : 0o600), "\(name) has mode \(String(mode, radix: 8))")
        }
    }

    @Test("no token material appears in the log or any file but credentials")
    func noTokensOutsideCredentials() throws {
        let harness = ShellHarness()
        #expect(try harness.run(["-c", "login alex --password inspect-demo; sync; status"]).status == 0)
        let credentials = try JSONValue.parse(Data(contentsOf: harness.dataDirectory.path("credentials")))
        let secrets = [
            credentials["access_token"]?.stringValue ?? credentials["accessToken"]?.stringValue,
            credentials["refresh_token"]?.stringValue ?? credentials["refreshToken"]?.stringValue,
        ].compactMap { $0 }
        #expect(secrets.count == 2)
        let enumerator = try #require(
            FileManager.default.enumerator(at: harness.dataDirectory.url, includingPropertiesForKeys: nil))
        for case let file as URL in enumerator where file.lastPathComponent != "credentials" {
            guard let data = try? Data(contentsOf: file) else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "\(file.path) holds token material") }
            #expect(!text.contains("inspect-demo"), "\(file.path) holds the password")
        }
    }

    @Test("--server with another identity is a switch: signed out, said on stderr, recorded for the next run")
    func serverSwitch() throws {
        let harness = ShellHarness()
        #expect(try harness.run(["-c", "login alex --password inspect-demo"]).status == 0)
        let switched = try harness.run(["--server", "http://127.0.0.1:9", "--json", "-c", "whoami; server"])
        #expect(switched.status == 0, "\(switched.stderr)")
        #expect(switched.stderr.contains("Switched server from embedded to http://127.0.0.1:9"))
        #expect(switched.jsonLines[0]["data"]?["signed_in"] == false)
        #expect(switched.jsonLines[1]["data"]?["server"] == "http://127.0.0.1:9")
        let next = try harness.run(["--json", "-c", "server"])
        #expect(next.jsonLines[0]["data"]?["server"] == "http://127.0.0.1:9")
        #expect(!next.stderr.contains("Switched"))
    }

    @Test("an unreachable server: login fails with a sentence, offline tools still work")
    func unreachableServer() throws {
        let harness = ShellHarness()
        let result = try harness.run(["--server", "http://127.0.0.1:9", "--json", "-c", "login alex --password x"])
        #expect(result.status == 1)
        #expect(result.jsonLines[0]["error"]?.stringValue?.hasPrefix("The server could not be reached") == true)
    }

    @Test("a recorded server value that is not valid falls back to embedded (rule 81)")
    func invalidRecordedServer() throws {
        let harness = ShellHarness()
        try "gopher://nope\n".write(to: harness.dataDirectory.path("server"), atomically: true, encoding: .utf8)
        let result = try harness.run(["--json", "-c", "server"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.jsonLines[0]["data"]?["server"] == "embedded")
    }

    @Test("sync when signed out fails with a sentence and exit 1; status says so")
    func syncSignedOut() throws {
        let result = try ShellHarness().run(["--json", "-c", "status; sync"])
        #expect(result.status == 1)
        #expect(result.jsonLines[0]["data"]?["signed_in"] == false)
        #expect(result.jsonLines[1]["error"] == "You are not signed in; log in to sync. Nothing was lost.")
    }
}
