import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// `../shared/fixtures/photos/hopper.jpg` when ../shared is present (the suite says so when it is absent).
private let hopperPhoto: URL? = TestPaths.sharedFixture("photos/hopper.jpg").flatMap {
    FileManager.default.fileExists(atPath: $0.path) ? $0 : nil
}

@Suite("jqc-shell image answers: `answer` refuses text, `photo FIELD --clear` discards (issue 18)")
struct PhotoClearCommandTests {
    @Test(
        "answer 9 TEXT is refused; photo 9 --clear removes the answer and the pending photo; photo 2 --clear is refused",
        .enabled(if: hopperPhoto != nil, "../shared/fixtures/photos/hopper.jpg is absent"))
    func clearCommand() throws {
        let file = try #require(hopperPhoto).path
        let harness = ShellHarness()
        let setUp = try harness.run([
            "--json", "-c",
            "login alex --password inspect-demo; sync; start --template 3 --facility 11; photo 9 \(file)",
        ])
        #expect(setUp.status == 0, "\(setUp.stderr)")
        let sentinel = try #require(setUp.jsonLines[3]["data"]?["sentinel"]?.stringValue)
        let refused = try harness.run(["--json", "-c", "answer 9 not-a-photo"])
        #expect(refused.status == 1)
        #expect(
            refused.jsonLines.first?["error"]?.stringValue
                == "Field \"Photo of condition\" (id 9) is an image field and takes a photo only through "
                + "'photo 9 FILE'; clear it with 'photo 9 --clear' or 'answer 9 \"\"'.")
        let cleared = try harness.run(["--json", "-c", "status; photo 9 --clear; form; status"])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        let lines = cleared.jsonLines
        #expect(lines[0]["data"]?["pending"]?["photos"] == 1)
        #expect(lines[1]["data"]?["cleared"] == true)
        #expect(lines[1]["data"]?["field_id"] == "9")
        #expect(lines[2]["data"]?["answers"]?["9"] == nil)
        #expect(lines[3]["data"]?["pending"]?["photos"] == 0)
        let photoFile = String(sentinel.dropFirst("local://photos/".count))
        #expect(!FileManager.default.fileExists(atPath: harness.dataDirectory.path("photos/\(photoFile)").path))
        let wrongField = try harness.run(["--json", "-c", "photo 2 --clear"])
        #expect(wrongField.status == 1)
        #expect(
            wrongField.jsonLines.first?["error"]?.stringValue?
                .contains("is a rating field, not an image or signature field") == true)
    }
}
