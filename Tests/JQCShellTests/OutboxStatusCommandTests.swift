import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// SHELL.md `status` and `sync`: every registered outbox kind is listed with its pending and failed counts,
/// whatever the installed features are; the shell names none of them.
@Suite("status and sync list every registered outbox kind")
struct OutboxStatusCommandTests {
    @Test("a queued issue and its queued edit show under their kinds in status (JSON and text) and clear on sync")
    func everyKind() throws {
        let harness = ShellHarness()
        let setup = try harness.run(["--json", "-c", "login alex --password inspect-demo; sync; offline"])
        #expect(setup.status == 0, "\(setup.stdout)\(setup.stderr)")
        let made = try harness.run(["--json", "-c", #"issue new --facility 21 low "Dust on the sills""#])
        let localID = try #require(made.jsonLines.first?["data"]?["local_id"]?.stringValue, "\(made.stdout)")
        let queued = try harness.run(["--json", "-c", "issue status \(localID) resolved; status"])
        #expect(queued.status == 0, "\(queued.stdout)\(queued.stderr)")
        let status = try #require(queued.jsonLines.last?["data"])
        let kinds = try #require(status["outbox"]?.arrayValue)
        let pending = try #require(status["pending"]?.objectValue)
        // Every listed kind has its pending count under its name, and nothing else is counted.
        #expect(Set(kinds.compactMap { $0["kind"]?.stringValue }) == Set(pending.keys))
        for kind in kinds {
            #expect(pending[kind["kind"]?.stringValue ?? ""] == kind["pending"])
        }
        #expect(kinds.count == Set(kinds.compactMap { $0["kind"]?.stringValue }).count)
        // The new issue and its status edit are the only pending work, each under its own kind.
        let nonZero = pending.filter { $0.value != 0 }
        #expect(nonZero.count == 2)
        #expect(pending["issues"] == 1)
        #expect(nonZero.values.allSatisfy { $0 == 1 })

        // The text lists every kind with its label, in the JSON's order.
        let text = try harness.run(["-c", "status"]).stdout
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("pending: ") })
        let expected = kinds.map { "\($0["pending"]?.intValue ?? -1) \($0["label"]?.stringValue ?? "?")" }
        #expect(line == "pending: " + expected.joined(separator: ", "))

        let synced = try harness.run(["--json", "-c", "online; sync; status"])
        #expect(synced.status == 0, "\(synced.stdout)\(synced.stderr)")
        let afterSync = try #require(synced.jsonLines[1]["data"]?["pending"]?.objectValue)
        #expect(Set(afterSync.keys) == Set(pending.keys))
        #expect(afterSync.values.allSatisfy { $0 == 0 })
        #expect(synced.jsonLines[1]["data"]?["outbox"]?.arrayValue?.count == kinds.count)
    }
}
