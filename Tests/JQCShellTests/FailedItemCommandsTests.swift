import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// SPEC.md §4: a failed item is never retried automatically but can be retried or discarded by the
/// inspector — here for inspections, through the shell, against the embedded dev server's faults.
@Suite("Failed inspections: retry and discard")
struct FailedItemCommandsTests {
    /// `POST /__admin/faults` on the embedded server whose base URL `server` printed.
    func fault(_ baseURL: String, _ body: String) throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = [
            "-s", "-o", "/dev/null", "-X", "POST", baseURL + "/__admin/faults", "-H", "Content-Type: application/json",
            "--data-binary", body,
        ]
        try process.run()
        process.waitUntilExit()
    }

    @Test("a 422 fails the inspection and its issue; retry lands it; discard removes another with its issue")
    func retryAndDiscard() throws {
        // A standalone dev server (the embedded one lives only as long as each shell run).
        let serverData = TemporaryDirectory(prefix: "jqc-devserver")
        let server = try ChildProcess(
            TestPaths.productsDirectory.appendingPathComponent("jqc-devserver"),
            ["--port", "0", "--admin", "--data-dir", serverData.url.path])
        defer { server.kill(SIGTERM) }
        let baseURL = String(server.readLine()?.dropFirst("listening on ".count) ?? "")
        let plain = ShellHarness()
        struct Bound {
            let harness: ShellHarness
            let url: String
            func run(_ arguments: [String]) throws -> ShellHarness.Result {
                try harness.run(["--server", url] + arguments)
            }
        }
        let harness = Bound(harness: plain, url: baseURL)
        let setup = try harness.run(["--json", "-c", "login alex --password inspect-demo; sync"])
        #expect(setup.status == 0, "\(setup.stdout)\(setup.stderr)")
        func failOne() throws -> String {
            let made = try harness.run([
                "--json", "-c",
                "start --template 3 --facility 11 --area 111; answer 2 4; submit; flag low \"Scuffed wall\"",
            ])
            try fault(baseURL, #"{"method":"POST","path_prefix":"/api/v1/inspections","mode":"status","status":422}"#)
            #expect(try harness.run(["-c", "sync"]).status == 0)
            return made.jsonLines[0]["data"]?["local_id"]?.stringValue ?? ""
        }
        let first = try failOne()
        var status = try harness.run(["--json", "-c", "status"]).jsonLines[0]["data"]
        #expect(
            status?["failed"]?.arrayValue?.compactMap { $0["kind"]?.stringValue }.sorted() == ["inspection", "issue"])
        // Issue 18: status names the commands that unblock each failed item.
        let failedInspection = status?["failed"]?.arrayValue?.first { $0["kind"] == "inspection" }
        #expect(
            failedInspection?["commands"]
                == .array(["inspection retry \(first)", "inspection discard \(first) --yes"].map(JSONValue.string)))
        let failedIssue = try #require(status?["failed"]?.arrayValue?.first { $0["kind"] == "issue" })
        let issueID = failedIssue["local_id"]?.stringValue ?? ""
        #expect(
            failedIssue["commands"]
                == .array(["issue retry \(issueID)", "issue discard \(issueID)"].map(JSONValue.string)))
        let text = try harness.run(["-c", "status"]).stdout
        #expect(text.contains("'inspection retry \(first)' or 'inspection discard \(first) --yes'"))
        #expect(text.contains("'issue retry \(issueID)' or 'issue discard \(issueID)'"))

        let retried = try harness.run(["--json", "-c", "inspection retry \(first); sync; status"])
        #expect(retried.status == 0, "\(retried.stdout)")
        status = retried.jsonLines[2]["data"]
        #expect(status?["pending"]?["inspections"] == 0)
        #expect(status?["failed"]?.arrayValue?.map { $0["kind"] } == ["issue"])  // its issue waits for its own retry

        let second = try failOne()
        let refused = try harness.run(["--json", "-c", "inspection discard \(second)"])
        #expect(refused.status == 1)
        #expect(refused.jsonLines[0]["error"]?.stringValue?.hasSuffix("--yes' to confirm.") == true)
        let discarded = try harness.run(["--json", "-c", "inspection discard \(second) --yes; inspections; status"])
        #expect(discarded.status == 0, "\(discarded.stdout)")
        let locals = discarded.jsonLines[1]["data"]?["inspections"]?.arrayValue?.compactMap {
            $0["local_id"]?.stringValue
        }
        #expect(locals?.contains(second) == false)
        #expect(locals?.contains(first) == true)
        let issuesLeft = discarded.jsonLines[2]["data"]?["failed"]?.arrayValue?.map { $0["kind"] }
        #expect(issuesLeft == ["issue"])  // the first inspection's issue only; the discarded one's went with it
        let again = try harness.run(["--json", "-c", "inspection retry \(first)"])
        #expect(again.status == 1)
        #expect(again.jsonLines[0]["error"]?.stringValue?.contains("only a failed inspection can be retried") == true)
    }
}
