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
        // `make chaos` runs 200 trials (JQC_CHAOS_TRIALS); `make test` a short 10.
        let trials = ProcessInfo.processInfo.environment["JQC_CHAOS_TRIALS"].flatMap(Int.init) ?? 10
        for _ in 0..<trials {
            let lines = try run(
                world, directory,
                "start --template 3 --facility 11 --area 111; answer 2 3; submit; start --template 4 --facility 21")
            let ids = lines.compactMap { $0["data"]?["local_id"]?.stringValue }
            try #require(ids.count >= 3, "\(lines)")
            localIDs.append(ids[0])
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
        let lost = counts.filter { $0 == 0 }.count
        let duplicated = counts.map { max(0, $0 - 1) }.reduce(0, +)
        print(
            "chaos: \(trials) kill -9 trials mid-sync: \(localIDs.count) inspections, lost \(lost), duplicated \(duplicated)"
        )
        #expect(lost == 0)
        #expect(duplicated == 0)
        let local = final[1]["data"]?["inspections"]?.arrayValue ?? []
        #expect(local.count == 2 * trials)
        #expect(local.filter { $0["badge"] == "Completed" }.count == trials)
        #expect(local.filter { $0["badge"] == "Draft" }.count == trials)
        #expect(final[2]["data"]?["pending"]?["inspections"] == 0)
        #expect(final[2]["data"]?["failed"] == [])
    }
}
