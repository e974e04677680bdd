import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// Issue 19: the embedded dev server's `/__admin` endpoints (every record, fault injection) are closed
/// unless the shell is started with `--admin-faults` or `JQC_ADMIN_FAULTS=1`.
@Suite("Embedded server admin")
struct EmbeddedAdminTests {
    /// Starts the shell reading commands from a pipe, asks `server` for the embedded server's URL, and
    /// returns the status `GET /__admin/state` gets there while the shell runs.
    func adminStatus(_ arguments: [String], environment: [String: String] = [:]) throws -> Int {
        let data = TemporaryDirectory(prefix: "jqc-shell-admin")
        let shell = try ChildProcess(
            ShellHarness.binary, ["--data-dir", data.url.path, "--json"] + arguments,
            environment: ["NO_COLOR": "1", "JQC_ADMIN_FAULTS": ""].merging(environment) { _, new in new })
        shell.write("server\n")
        let line = try #require(shell.readLine())
        let url = try #require(try JSONValue.parse(line)["data"]?["url"]?.stringValue)
        #expect(url.hasPrefix("http://127.0.0.1:"))
        let curl = TestProcess()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", url + "/__admin/state"]
        let pipe = Pipe()
        curl.standardOutput = pipe
        try curl.run()
        let code = pipe.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        let result = shell.finish()
        #expect(result.status == 0, "\(result.stderr)")
        return Int(String(decoding: code, as: UTF8.self)) ?? 0
    }

    @Test("without --admin-faults the embedded server has no /__admin")
    func closedByDefault() throws {
        #expect(try adminStatus([]) == 404)
        #expect(try adminStatus([], environment: ["JQC_ADMIN_FAULTS": "0"]) == 404)
    }

    @Test("--admin-faults or JQC_ADMIN_FAULTS=1 opens it")
    func openWithTheFlag() throws {
        #expect(try adminStatus(["--admin-faults"]) == 200)
        #expect(try adminStatus([], environment: ["JQC_ADMIN_FAULTS": "1"]) == 200)
    }
}
