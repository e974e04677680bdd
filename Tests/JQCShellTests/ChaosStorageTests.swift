import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// A real, small filesystem for disk-full tests: a 4 MB tmpfs mounted for the test (root only; the
/// tests say so and skip where mounting is not allowed).
final class TinyFilesystem {
    let mountPoint: URL
    private let scratch = TemporaryDirectory(prefix: "jqc-tinyfs")

    init?() {
        mountPoint = scratch.path("mnt")
        try? FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        guard TinyFilesystem.run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint.path]) == 0 else {
            return nil
        }
    }

    /// Fills the filesystem with a file of zeros until it refuses more.
    func fill() {
        _ = TinyFilesystem.run("/bin/dd", ["if=/dev/zero", "of=\(mountPoint.path)/filler", "bs=64k"])
    }

    /// Frees the space again.
    func free() { try? FileManager.default.removeItem(at: mountPoint.appendingPathComponent("filler")) }

    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = nil  // /dev/null
        process.standardError = nil  // /dev/null
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { _ = TinyFilesystem.run("/bin/umount", [mountPoint.path]) }

    /// Whether this machine lets the tests mount a tmpfs (root, and a sandbox that allows it).
    static let isAvailable: Bool = TinyFilesystem() != nil
}

/// Issue 11's storage chaos: disk full during submit and photo import, a damaged store at launch. Each
/// gives a sentence a person can act on, and nothing is lost.
@Suite("Chaos: storage", .serialized)
struct ChaosStorageTests {
    @Test(
        "disk full during submit: refused with a sentence, the draft and its answers kept, submit works once space is freed",
        .enabled(if: TinyFilesystem.isAvailable, "mounting a 4 MB tmpfs needs root")
    )
    func diskFullDuringSubmit() throws {
        let disk = try #require(TinyFilesystem())
        let directory = disk.mountPoint.appendingPathComponent("jqc")
        let harness = ShellHarness()
        func run(_ commands: String) throws -> ShellHarness.Result {
            try harness.run(["--data-dir", directory.path, "--json", "-c", commands], dataDir: false)
        }
        let setup = try run(
            "login alex --password inspect-demo; sync; start --template 3 --facility 11 --area 111; answer 2 4")
        #expect(setup.status == 0, "\(setup.stdout)\(setup.stderr)")
        let localID = setup.jsonLines[2]["data"]?["local_id"]?.stringValue ?? ""
        disk.fill()
        let full = try run("answer 10 \"\(String(repeating: "long comment ", count: 400))\"; submit")
        #expect(full.status == 1)
        let error = full.jsonLines.last?["error"]?.stringValue ?? ""
        #expect(
            error == "The local store could not be saved because the disk is full; nothing was changed. "
                + "Free some space and try again.", "\(error)")
        #expect(full.stderr.contains("Working offline: your work is saved locally and queued."))
        disk.free()
        let after = try run("drafts; submit; status")
        #expect(after.status == 0, "\(after.stdout)\(after.stderr)")
        let drafts = after.jsonLines[0]["data"]?["drafts"]?.arrayValue ?? []
        #expect(drafts.map { $0["local_id"] } == [.string(localID)])
        #expect(after.jsonLines[1]["ok"] == true)
        #expect(after.jsonLines[2]["data"]?["pending"]?["inspections"] == 1)
    }

    @Test(
        "disk full during photo import: refused with a sentence and no output file left behind",
        .enabled(if: TinyFilesystem.isAvailable, "mounting a 4 MB tmpfs needs root"),
        .enabled(if: TestPaths.sharedFixture("photos/Portrait_6.jpg") != nil, "../shared/fixtures/photos is absent")
    )
    func diskFullDuringPhotoImport() throws {
        let disk = try #require(TinyFilesystem())
        let photo = try #require(TestPaths.sharedFixture("photos/Portrait_6.jpg"))
        disk.fill()
        let output = disk.mountPoint.appendingPathComponent("out.jpg")
        let result = try ShellHarness().run(["--json", "-c", "photos recompress \(photo.path) \(output.path)"])
        #expect(result.status == 1)
        #expect(result.jsonLines.first?["error"]?.stringValue?.contains("the disk is full") == true, "\(result.stdout)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: disk.mountPoint.path)) ?? []
        #expect(left == ["filler"], "\(left)")
    }

    @Test(
        "a damaged store at launch: each command says which file and what to do; offline tools still work; the file is untouched"
    )
    func damagedStoreAtLaunch() throws {
        let harness = ShellHarness()
        let store = harness.dataDirectory.path("jqc.sqlite")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: store)
        let result = try harness.run(["--json", "-c", "whoami"])
        #expect(result.status == 1)
        let error = result.jsonLines.first?["error"]?.stringValue ?? ""
        #expect(error.hasPrefix("The local store file is damaged or is not a jqc database"))
        #expect(error.contains(store.path))
        let tool = try harness.run(["--json", "-c", "echo still; help score"])
        #expect(tool.status == 0)
        #expect(try Data(contentsOf: store) == garbage)
    }
}
