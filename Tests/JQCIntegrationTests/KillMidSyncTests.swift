import Foundation
import JQCKit
import JQCTestSupport
import Testing

@Suite("kill -9 mid-sync (issue 7)")
struct KillMidSyncTests {
    static var shell: URL { TestPaths.productsDirectory.appendingPathComponent("jqc-shell") }

    /// Runs jqc-shell over `directory` against `world`'s server to the end; returns its JSON lines.
    func run(_ world: TestApp, _ directory: TemporaryDirectory, _ commands: String) throws -> [JSONValue] {
        let child = try ChildProcess(
            KillMidSyncTests.shell,
            [
                "--server", world.baseURL.absoluteString, "--data-dir", directory.url.path, "--json", "-c", commands,
            ])
        let result = child.finish()
        return result.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    @Test(
        "a jqc-shell killed with SIGKILL at a random moment of sync, then run again: nothing lost, nothing duplicated")
    func killedAtRandom() throws {
        try #require(FileManager.default.isExecutableFile(atPath: KillMidSyncTests.shell.path), "build jqc-shell first")
        let world = try TestApp()
        let directory = TemporaryDirectory(prefix: "jqc-kill-sync")
        _ = try run(world, directory, "login alex --password inspect-demo; sync")
        var generator = SystemRandomNumberGenerator()
        var localIDs: [String] = []
        var issueIDs: [String] = []
        let photo = try jpeg(in: directory.url, "evidence.jpg", seed: 5)
        // `make chaos` runs 200 trials (JQC_CHAOS_TRIALS); `make test` a short 10.
        let trials = ProcessInfo.processInfo.environment["JQC_CHAOS_TRIALS"].flatMap(Int.init) ?? 10
        for _ in 0..<trials {
            let lines = try run(
                world, directory,
                "start --template 3 --facility 11 --area 111; answer 2 3; photo 9 \(photo.path); "
                    + "flag low \"Scuffed wall\" --photo \(photo.path); submit; start --template 4 --facility 21")
            try #require(lines.count == 6 && lines.allSatisfy { $0["ok"] == true }, "\(lines)")
            localIDs.append(lines[0]["data"]?["local_id"]?.stringValue ?? "")
            issueIDs.append(lines[3]["data"]?["issue"]?["local_id"]?.stringValue ?? "")
            let child = try ChildProcess(
                KillMidSyncTests.shell,
                [
                    "--server", world.baseURL.absoluteString, "--data-dir", directory.url.path, "--json", "-c", "sync",
                ])
            usleep(UInt32.random(in: 0...80_000, using: &generator))  // a run takes about 60 ms
            child.kill()
        }
        let final = try run(world, directory, "sync; inspections; status")
        #expect(final.first?["ok"] == true)
        let state = try world.adminState()["inspections"]?.arrayValue ?? []
        let counts = localIDs.map { id in state.filter { $0["local_id"] == .string(id) }.count }
        let serverIssues = try world.adminState()["issues"]?.arrayValue ?? []
        let issueCounts = issueIDs.map { id in serverIssues.filter { $0["local_id"] == .string(id) }.count }
        let all = counts + issueCounts
        let lost = all.filter { $0 == 0 }.count
        let duplicated = all.map { max(0, $0 - 1) }.reduce(0, +)
        // Every issue landed with its photo, and every inspection with its photo's server path (never local://).
        let ourIssues = serverIssues.filter { issueIDs.contains($0["local_id"]?.stringValue ?? "") }
        #expect(ourIssues.allSatisfy { $0["photo_path"]?.stringValue?.hasPrefix("uploads/") == true })
        let ourInspections = state.filter { localIDs.contains($0["local_id"]?.stringValue ?? "") }
        #expect(ourInspections.allSatisfy { $0["form_data"]?["9"]?.stringValue?.hasPrefix("uploads/") == true })
        print(
            "chaos: \(trials) kill -9 trials mid-sync: \(localIDs.count) inspections and \(issueIDs.count) issues "
                + "with photos, lost \(lost), duplicated \(duplicated)")
        #expect(lost == 0)
        #expect(duplicated == 0)
        let local = final[1]["data"]?["inspections"]?.arrayValue ?? []
        #expect(local.count == 2 * trials)
        #expect(local.filter { $0["badge"] == "Completed" }.count == trials)
        #expect(local.filter { $0["badge"] == "Draft" }.count == trials)
        let pending = final[2]["data"]?["pending"]?.objectValue ?? [:]
        #expect(Set(["photos", "inspections", "issues"]).isSubset(of: pending.keys))
        #expect(pending.values.allSatisfy { $0 == 0 })
        #expect(final[2]["data"]?["failed"] == [])
    }
}
