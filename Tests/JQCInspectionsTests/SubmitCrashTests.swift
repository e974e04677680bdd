import Foundation
import JQCTestSupport
import Testing

private var probe: URL { TestPaths.productsDirectory.appendingPathComponent("jqc-inspections-probe") }

@Suite("Submit is one transaction under SIGKILL (SPEC.md §4)")
struct SubmitCrashTests {
    @Test("a SIGKILL at a random point of a start/answer/submit loop always leaves old or new state, never a mix")
    func killedAtRandom() throws {
        try #require(FileManager.default.isExecutableFile(atPath: probe.path), "build jqc-inspections-probe first")
        let directory = TemporaryDirectory(prefix: "jqc-submit-crash")
        var generator = SystemRandomNumberGenerator()
        var lastReported = 0
        for _ in 0..<30 {
            let child = try ChildProcess(probe, ["submit-loop", directory.url.path])
            let lines = Int.random(in: 1...4, using: &generator)
            for _ in 0..<lines {
                guard let line = child.readLine() else { break }
                if line.hasPrefix("submitted ") { lastReported += 1 }
            }
            usleep(UInt32.random(in: 0...15_000, using: &generator))
            child.kill()
            let check = try ChildProcess(probe, ["check", directory.url.path]).finish()
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            let parts = check.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
            #expect(parts.first == "ok")
            let completed = parts.count == 3 ? Int(parts[2]) ?? -1 : -1
            #expect(completed >= lastReported, "a submit reported as committed was lost")
            lastReported = max(lastReported, completed)
        }
    }
}
