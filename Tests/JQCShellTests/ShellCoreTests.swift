import Foundation
import JQCKit
import JQCTestSupport
import Testing

@Suite("jqc-shell core (issue 5)")
struct ShellCoreTests {
    @Test("words are split like a POSIX shell: quotes group, backslash escapes, ; separates")
    func quoting() throws {
        let result = try ShellHarness().run([
            "--json", "-c", #"echo "two words" 'it''s' a\ b "q\"uote" ''; echo 'semi;colon' "x""#,
        ])
        #expect(result.status == 0)
        let lines = result.jsonLines
        #expect(lines.count == 2)
        #expect(lines.first?["data"]?["words"] == ["two words", "its", "a b", "q\"uote", ""])
        #expect(lines.last?["data"]?["words"] == ["semi;colon", "x"])
    }

    @Test("an unquoted leading ~ is the home directory; quoted, escaped or mid-word it stays")
    func tildeExpansion() throws {
        let result = try ShellHarness().run(
            ["--json", "-c", #"echo ~ ~/a.jpg '~/q' \~/e x~/y "~"/z"#],
            environment: ["HOME": "/home/inspector"])
        #expect(
            result.jsonLines.first?["data"]?["words"] == [
                "/home/inspector", "/home/inspector/a.jpg", "~/q", "~/e", "x~/y", "~/z",
            ])
    }

    @Test("an unknown command suggests the closest one by edit distance, or none when nothing is close")
    func typoSuggestions() throws {
        let result = try ShellHarness().run(["--json"], stdin: "scheduld\nsycn\nfrobnicate\n")
        let errors = result.jsonLines.compactMap { $0["error"]?.stringValue }
        #expect(errors.first == "Unknown command 'scheduld'. Did you mean 'scheduled'? Type 'help' for the list.")
        #expect(result.jsonLines.count == 1)  // a script stops at its first failure
        let sync = try ShellHarness().run(["--json", "-c", "sycn"])
        #expect(
            sync.jsonLines.first?["error"] == "Unknown command 'sycn'. Did you mean 'sync'? Type 'help' for the list.")
        let none = try ShellHarness().run(["--json", "-c", "frobnicate"])
        #expect(none.jsonLines.first?["error"] == "Unknown command 'frobnicate'. Type 'help' for the list.")
    }

    @Test("a group's first word alone names the group's commands (never suggests itself as a typo)")
    func groupWithoutSubcommand() throws {
        let result = try ShellHarness().run(["--json", "-c", "inspection 1234"])
        let line = try #require(result.jsonLines.first)
        #expect(line["code"] == "shell.usage")
        let error = try #require(line["error"]?.stringValue)
        #expect(error.hasPrefix("'inspection' needs one of its commands: 'inspection "))
        #expect(error.contains("'inspection retry'"))
        #expect(!error.contains("Did you mean"))
    }

    @Test("an unclosed quote is a failed command with a sentence")
    func unclosedQuote() throws {
        let result = try ShellHarness().run(["--json", "-c", #"echo "open"#])
        #expect(result.status == 1)
        #expect(result.jsonLines.first?["ok"] == false)
        #expect(result.jsonLines.first?["error"]?.stringValue?.hasPrefix("A \" quote is not closed") == true)
    }

    @Test(
        "--json prints exactly one line per command, and an unknown command still prints its ok:false line, then exit 1"
    )
    func jsonLinesAndFirstFailure() throws {
        let result = try ShellHarness().run(["--json", "-c", "echo a; frobnicate now; echo never"])
        #expect(result.status == 1)
        #expect(result.stdout.split(separator: "\n").count == 2)
        #expect(result.jsonLines[0] == ["ok": true, "command": "echo", "data": ["words": ["a"]]])
        #expect(result.jsonLines[1]["ok"] == false)
        #expect(result.jsonLines[1]["command"] == "frobnicate")
        #expect(result.jsonLines[1]["error"]?.stringValue?.hasPrefix("Unknown command 'frobnicate'.") == true)
    }

    @Test("a script file stops at the first failed command with exit status 1; comments and blank lines are skipped")
    func scriptFile() throws {
        let harness = ShellHarness()
        let script = harness.dataDirectory.path("script.jqc")
        try "# a comment\n\necho one\nhelp nosuchcommand\necho two\n".write(
            to: script, atomically: true, encoding: .utf8)
        let result = try harness.run(["--script", script.path])
        #expect(result.status == 1)
        #expect(result.stdout == "one\n")
        #expect(result.stderr.contains("error: There is no command 'nosuchcommand'."))
    }

    @Test("commands on stdin run one line at a time when stdin is not a terminal")
    func standardInput() throws {
        let result = try ShellHarness().run(["--json"], stdin: "echo first\necho second\n")
        #expect(result.status == 0)
        #expect(result.jsonLines.map { $0["data"]?["words"] } == [["first"], ["second"]])
    }

    @Test(
        "a bad option of jqc-shell itself exits 64 before anything runs",
        arguments: [
            ["--bogus"], ["--color", "purple"], ["--server", "gopher://x"], ["--script", "a", "-c", "echo"],
            ["--data-dir"],
        ])
    func badOptionExits64(arguments: [String]) throws {
        let harness = ShellHarness()
        let result = try harness.run(arguments + ["-c", "echo ran"], dataDir: false)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("jqc-shell: "))
    }

    @Test("the data directory is created 0700")
    func dataDirectoryMode() throws {
        let harness = ShellHarness()
        let nested = harness.dataDirectory.path("nested/jqc")
        let result = try harness.run(["--data-dir", nested.path, "-c", "echo ok"], dataDir: false)
        #expect(result.status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: nested.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o700)
    }

    @Test("JQC_HOME chooses the data directory when --data-dir is absent")
    func jqcHome() throws {
        let home = TemporaryDirectory()
        let target = home.path("from-env")
        let result = try ShellHarness().run(["-c", "echo ok"], environment: ["JQC_HOME": target.path], dataDir: false)
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: target.path))
    }

    @Test("help lists commands and help COMMAND explains one; offline tools need no server")
    func help() throws {
        let result = try ShellHarness().run(["--json", "-c", "help; help echo"])
        #expect(result.status == 0)
        let names = result.jsonLines[0]["data"]?["commands"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names.contains("help") && names.contains("quit") && names.contains("echo"))
        #expect(result.jsonLines[1]["data"]?["usage"] == "WORDS…")
    }

    @Test("quit ends a script early with status 0")
    func quitEndsScript() throws {
        let result = try ShellHarness().run(["-c", "echo a; quit; echo b"])
        #expect(result.status == 0)
        #expect(result.stdout == "a\n")
    }
}
