import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// A line feed or carriage return inside a server string must not start a line of its own in human output
/// (issue 14): a facility named "Main Courthouse\nSigned out. Log in again." would otherwise print a sentence
/// that reads as ours. Each list renderer shows the LF as `\n` and the CR as `\r`, inside its row.
extension HostileTextTests {
    /// Appended to every server string: an LF, a forged line, a CR and a second forged line.
    static let linePayload = "\nFORGED LINE\rFORGED AGAIN"
    /// How it must read inside a row.
    static let lineShown = #"\nFORGED LINE\rFORGED AGAIN"#

    /// The renderers that print server strings in rows, each with the command that shows one and a string of
    /// the demo seed it must show (with the payload escaped after it).
    static let renderers: [(command: String, shows: String)] = [
        ("contracts", "County Courthouse Contract"), ("facilities", "Main Courthouse"),
        ("facilities", "County Courthouse Contract"), ("areas 11", "1st Floor Restrooms"),
        ("templates", "Restroom QC"), ("issues --all", "Hand dryer not working"),
        ("issue show 49", "Vendor: Dryer Pros"), ("issue comments 49 --add Kommentar", "Alex Rivera"),
        ("notifications", "Issue #49 assigned to you"),
        ("scheduled", "Main Courthouse"), ("follow-ups", "Main Courthouse"), ("history", "Main Courthouse"),
        ("whoami", "inspector"), ("drafts", "Restroom QC"),
    ]

    @Test(
        "a line feed or CR in a server string is shown escaped inside its row, never as a line of its own",
        arguments: Array(renderers.indices))
    func embeddedLineBreaks(index: Int) throws {
        let (command, shows) = Self.renderers[index]
        let scratch = TemporaryDirectory(prefix: "jqc-hostile-lines")
        let server = try StandaloneServer(seed: try Self.hostileSeed(in: scratch, payload: Self.linePayload))
        let harness = ShellHarness(dataDirectory: TemporaryDirectory(prefix: "jqc-hostile-lines-run"))
        let setup = try harness.run([
            "--server", server.url, "-c",
            "login alex --password inspect-demo; sync; start --template 3 --facility 11 --area 111",
        ])
        #expect(setup.status == 0, "\(setup.stdout)\(setup.stderr)")
        let run = try harness.run(["--server", server.url, "--color", "never", "-c", command])
        #expect(run.status == 0, "\(command): \(run.stderr)")
        let lines = (run.stdout + run.stderr).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(!lines.contains { $0.hasPrefix("FORGED") }, "\(command) printed a forged line:\n\(run.stdout)")
        #expect(run.stdout.contains(Self.lineShown), "\(command) did not show the server string:\n\(run.stdout)")
        #expect(run.stdout.contains(shows + Self.lineShown), "\(command):\n\(run.stdout)")
        #expect(Self.firstUnsafe(run.stdout, colours: false) == nil)
    }
}
